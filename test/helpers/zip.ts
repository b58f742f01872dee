/**
 * Just enough of a zip reader to take single files out of an archive held in memory: the central directory, then
 * stored (method 0) or deflated (method 8) entries, CRC-checked. No zip64 and no encryption: archives that need
 * them are refused.
 */
import { crc32, inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  crc: number;
  /** Unix permission bits from the external attributes (0 when the archive was not made on Unix). */
  mode: number;
  localHeaderOffset: number;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;

function endOfCentralDirectory(zip: Buffer): number {
  // The record is 22 bytes plus a comment of at most 65,535 bytes, at the very end.
  const lowest = Math.max(0, zip.length - 22 - 0xffff);
  for (let offset = zip.length - 22; offset >= lowest; offset -= 1) {
    if (zip.readUInt32LE(offset) === END_OF_CENTRAL_DIRECTORY) return offset;
  }
  throw new Error('not a zip archive: no end of central directory record');
}

/** The archive's entries, by name. */
export function zipEntries(zip: Buffer): Map<string, ZipEntry> {
  const end = endOfCentralDirectory(zip);
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new Error('zip64 archives are not supported');
  const entries = new Map<string, ZipEntry>();
  for (let index = 0; index < count; index += 1) {
    if (zip.readUInt32LE(offset) !== CENTRAL_HEADER) throw new Error('corrupt zip central directory');
    const nameLength = zip.readUInt16LE(offset + 28);
    const name = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    entries.set(name, {
      name,
      method: zip.readUInt16LE(offset + 10),
      crc: zip.readUInt32LE(offset + 16),
      compressedSize: zip.readUInt32LE(offset + 20),
      size: zip.readUInt32LE(offset + 24),
      mode: (zip.readUInt32LE(offset + 38) >>> 16) & 0o7777,
      localHeaderOffset: zip.readUInt32LE(offset + 42),
    });
    offset += 46 + nameLength + zip.readUInt16LE(offset + 30) + zip.readUInt16LE(offset + 32);
  }
  return entries;
}

/** The content of one entry, inflated and checked against its size and CRC-32. */
export function zipEntryContent(zip: Buffer, entry: ZipEntry): Buffer {
  const header = entry.localHeaderOffset;
  if (zip.readUInt32LE(header) !== LOCAL_HEADER)
    throw new Error(`corrupt zip local header for ${entry.name}`);
  const start = header + 30 + zip.readUInt16LE(header + 26) + zip.readUInt16LE(header + 28);
  const raw = zip.subarray(start, start + entry.compressedSize);
  let content: Buffer;
  if (entry.method === 0) content = Buffer.from(raw);
  else if (entry.method === 8) content = inflateRawSync(raw);
  else throw new Error(`zip entry ${entry.name}: compression method ${entry.method} is not supported`);
  if (content.length !== entry.size || crc32(content) !== entry.crc) {
    throw new Error(`zip entry ${entry.name}: size or CRC-32 mismatch`);
  }
  return content;
}
