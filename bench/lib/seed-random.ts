/**
 * Deterministic randomness for seeding benchmark databases: the same seed gives the same rows on every
 * machine, so figures measured on two seeded databases compare, and a kept database can be rebuilt.
 * Each record draws from its own generator, keyed by (seed, kind, index), so records can be made in any order.
 */

/** MurmurHash3's finaliser: a fast, well-mixed 32-bit hash of a 32-bit value. */
export function mix32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** A 32-bit hash of a few small integers (a seed, a kind of record, an index, ...). */
export function hash32(...parts: readonly number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) h = mix32((h ^ part) + 0x7f4a7c15);
  return h;
}

/** A uniform draw in [0, 1). */
export type Random = () => number;

/** Mulberry32: a small, fast generator with a 32-bit state; plenty for test data. */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The generator of one record: `kind` tells apart records of different tables with the same index. */
export function recordRandom(seed: number, kind: number, index: number): Random {
  return mulberry32(hash32(seed, kind, index));
}

const HEX = Array.from({ length: 256 }, (_, n) => n.toString(16).padStart(2, '0'));

function hex32(value: number): string {
  return (
    (HEX[(value >>> 24) & 0xff] as string) +
    HEX[(value >>> 16) & 0xff] +
    HEX[(value >>> 8) & 0xff] +
    HEX[value & 0xff]
  );
}

/** A version-4-shaped UUID determined by (seed, kind, index). */
export function seededUuid(seed: number, kind: number, index: number): string {
  const a = hash32(seed, kind, index, 1);
  const b = (hash32(seed, kind, index, 2) & 0xffff0fff) | 0x00004000;
  const c = ((hash32(seed, kind, index, 3) & 0x3fffffff) | 0x80000000) >>> 0;
  const d = hash32(seed, kind, index, 4);
  const [hb, hc] = [hex32(b), hex32(c)];
  return `${hex32(a)}-${hb.slice(0, 4)}-${hb.slice(4)}-${hc.slice(0, 4)}-${hc.slice(4)}${hex32(d)}`;
}

/** One standard normal draw (Box-Muller). */
export function normal(random: Random): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** An exponential draw with the given mean. */
export function exponential(random: Random, mean: number): number {
  return -Math.log(1 - random()) * mean;
}

/** One element, uniformly. */
export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** An index drawn with probability proportional to `cumulative` (ascending running totals ending at 1). */
export function pickWeighted(random: Random, cumulative: readonly number[]): number {
  const u = random();
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((cumulative[mid] as number) > u) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** Zipf-like running totals over `n` items: item k weighs 1/(k+1)^s. */
export function zipfCumulative(n: number, s: number): number[] {
  const weights = Array.from({ length: n }, (_, k) => 1 / (k + 1) ** s);
  const total = weights.reduce((sum, w) => sum + w, 0);
  let running = 0;
  return weights.map((w) => (running += w / total));
}
