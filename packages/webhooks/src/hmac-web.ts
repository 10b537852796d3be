/** HMAC-SHA256 with WebCrypto: workerd, Deno, Bun, browsers (and Node, where `hmac-node` is faster). */
import { encoder, toHex } from './bytes.js';

/** A key is a string (its UTF-8 bytes) or the key bytes themselves. */
export type HmacKey = string | Uint8Array;

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

export async function hmacSha256(key: HmacKey, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(key), data));
}

/** Constant-time: WebCrypto's verify compares in constant time. */
export async function hmacSha256Matches(
  key: HmacKey,
  data: Uint8Array<ArrayBuffer>,
  mac: Uint8Array<ArrayBuffer>,
): Promise<boolean> {
  return crypto.subtle.verify('HMAC', await hmacKey(key), mac, data);
}
