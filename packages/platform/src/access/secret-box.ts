/**
 * Encryption at rest for secrets (integration secrets, installation keys and tokens):
 * AES-256-GCM with a random 96-bit IV per value, stored as `v1.<iv>.<ciphertext+tag>` in base64url.
 * Opened values are kept by their sealed form (one sealed value always opens to the same text
 * under one key): a dispatch opens the installation's token, and opening was a measurable share
 * of its cost. The process holds these secrets in memory while it uses them anyway.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export class SecretBox {
  private readonly key: Buffer;
  private readonly opened = new Map<string, string>();

  constructor(key: Uint8Array) {
    if (key.length !== 32) throw new Error(`the secret key must be 32 bytes, got ${key.length}`);
    this.key = Buffer.from(key);
  }

  /**
   * An HMAC-SHA256 of `data` (base64url) under a key derived from the secret key for `purpose`:
   * values the platform signs and checks later (OAuth start links), valid on every node that
   * shares the secret key, and never valid for another purpose.
   */
  mac(purpose: string, data: string): string {
    const key = createHmac('sha256', this.key).update(`portico-mac:${purpose}`).digest();
    return createHmac('sha256', key).update(data).digest('base64url');
  }

  /** Whether `mac` is the MAC of `data` for `purpose` (compared in constant time). */
  verifyMac(purpose: string, data: string, mac: string): boolean {
    const expected = Buffer.from(this.mac(purpose, data));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v1.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
  }

  open(box: string): string {
    let text = this.opened.get(box);
    if (text === undefined) {
      text = this.openNow(box);
      if (this.opened.size >= MAX_OPENED) this.opened.clear();
      this.opened.set(box, text);
    }
    return text;
  }

  private openNow(box: string): string {
    const [version, iv, sealed] = box.split('.');
    if (version !== 'v1' || iv === undefined || sealed === undefined) throw new Error('not a sealed value');
    const bytes = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
  }
}

/** Opened values kept at most (a new one beyond this starts the cache afresh). */
const MAX_OPENED = 10_000;
