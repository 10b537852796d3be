/** HMAC-SHA256 with WebCrypto: workerd, Deno, Bun, browsers (and Node, where `hmac-node` is faster). */
import { encoder } from './bytes.js';

const keys = new Map<string, Promise<CryptoKey>>();
const MAX_CACHED_KEYS = 256;

/** The imported key of a secret; kept for the secrets most recently used. */
function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (key === undefined) {
    if (keys.size >= MAX_CACHED_KEYS) keys.delete(keys.keys().next().value as string);
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    keys.set(secret, key);
  }
  return key;
}

export async function hmacSha256(secret: string, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret), data));
}

/** Constant-time: WebCrypto's verify compares in constant time. */
export async function hmacSha256Matches(
  secret: string,
  data: Uint8Array<ArrayBuffer>,
  mac: Uint8Array<ArrayBuffer>,
): Promise<boolean> {
  return crypto.subtle.verify('HMAC', await hmacKey(secret), mac, data);
}
