import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/** A secret sealed at rest: which key sealed it, and `iv ‖ ciphertext ‖ tag` (AES-256-GCM). */
export interface Sealed {
  keyId: string;
  secret: Buffer;
}

export interface SecretBox {
  seal(plain: Buffer): Sealed;
  /** Null when no key of the ring has the id, or the data was tampered with. */
  open(sealed: Sealed): Buffer | null;
  /** The id of the key new secrets are sealed with (to re-seal old ones when they are used). */
  currentKeyId: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encryption at rest for TOTP secrets (README, "TOTP"). Each configured key (TOTP_ENCRYPTION_KEY, comma-separated,
 * first one current) is stretched with HKDF-SHA256 to an AES-256 key; older keys still open what they sealed, so
 * a key is rotated by putting the new one first and dropping the old one once every secret is re-sealed.
 * `context` separates the derived keys from any other use of the same material (AUTH_SECRET, when it is the source).
 */
export function createSecretBox(materials: readonly string[], context: string): SecretBox {
  if (materials.length === 0) throw new Error('secret box: at least one key is required');
  const keys = materials.map((material) => ({
    id: createHash('sha256').update(`${context}:key-id:${material}`).digest('hex').slice(0, 16),
    key: Buffer.from(hkdfSync('sha256', material, 'gatehouse', context, 32)),
  }));
  const current = keys[0] as (typeof keys)[number];
  return {
    currentKeyId: current.id,
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      return { keyId: current.id, secret: Buffer.concat([iv, body, cipher.getAuthTag()]) };
    },
    open(sealed) {
      const key = keys.find((candidate) => candidate.id === sealed.keyId);
      if (!key || sealed.secret.length < IV_BYTES + TAG_BYTES + 1) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key.key, sealed.secret.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(sealed.secret.subarray(sealed.secret.length - TAG_BYTES));
        const body = sealed.secret.subarray(IV_BYTES, sealed.secret.length - TAG_BYTES);
        return Buffer.concat([decipher.update(body), decipher.final()]);
      } catch {
        return null;
      }
    },
  };
}
