/** HMAC-SHA256 with WebCrypto: workerd, Deno, Bun, browsers (and Node, where `hmac-node` is faster). */
import { concat, encoder, toHex } from './bytes.js';

/** A key is a string (its UTF-8 bytes) or the key bytes themselves. */
export type HmacKey = string | Uint8Array;
/** What is signed: bytes, or parts one after the other (a string stands for its UTF-8 bytes). */
export type Message = Uint8Array | readonly (string | Uint8Array)[];

/** WebCrypto signs one buffer: the parts, encoded and joined. */
function bytesOf(data: Message): Uint8Array<ArrayBuffer> {
  if (data instanceof Uint8Array) return data as Uint8Array<ArrayBuffer>;
  return concat(...data.map((part) => (typeof part === 'string' ? encoder.encode(part) : part)));
}

const keys = new Map<string, Promise<CryptoKey>>();
const MAX_CACHED_KEYS = 256;

/** The imported key; kept for the keys most recently used. */
function hmacKey(key: HmacKey): Promise<CryptoKey> {
  const name = typeof key === 'string' ? `s:${key}` : `b:${toHex(key)}`;
  let imported = keys.get(name);
  if (imported === undefined) {
    if (keys.size >= MAX_CACHED_KEYS) keys.delete(keys.keys().next().value as string);
    const bytes = typeof key === 'string' ? encoder.encode(key) : new Uint8Array(key);
    imported = crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    keys.set(name, imported);
  }
  return imported;
}

export async function hmacSha256(key: HmacKey, data: Message): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(key), bytesOf(data)));
}

/** Constant-time: WebCrypto's verify compares in constant time. */
export async function hmacSha256Matches(key: HmacKey, data: Message, mac: Uint8Array<ArrayBuffer>): Promise<boolean> {
  return crypto.subtle.verify('HMAC', await hmacKey(key), mac, bytesOf(data));
}
