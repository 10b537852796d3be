/**
 * Encryption at rest for secrets (integration secrets, installation keys and tokens):
 * AES-256-GCM with a random 96-bit IV per value, stored as `v1.<iv>.<ciphertext+tag>` in base64url.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== 32) throw new Error(`the secret key must be 32 bytes, got ${key.length}`);
    this.key = Buffer.from(key);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v1.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
  }

  open(box: string): string {
    const [version, iv, sealed] = box.split('.');
    if (version !== 'v1' || iv === undefined || sealed === undefined) throw new Error('not a sealed value');
    const bytes = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
  }
}
