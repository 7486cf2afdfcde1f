import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM with a key derived from SESSION_SECRET (HKDF-SHA256), for the
 * sessions kept in Redis. The store key is bound in as additional data: a
 * value copied under another session's key does not decrypt.
 */
export class SessionCipher {
  readonly #key: Buffer;

  constructor(secret: string) {
    this.#key = Buffer.from(
      hkdfSync('sha256', secret, 'vmw-graphql-gateway', 'session-store v1', 32),
    );
  }

  seal(plain: string, boundTo: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(boundTo, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
  }

  /** The plain text, or undefined when the value was not sealed with this key for `boundTo`. */
  open(value: string, boundTo: string): string | undefined {
    const bytes = Buffer.from(value, 'base64url');
    if (bytes.length < 29) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, 12));
      decipher.setAAD(Buffer.from(boundTo, 'utf8'));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      return undefined;
    }
  }
}
