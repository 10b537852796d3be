/** HMAC-SHA256 with node:crypto: synchronous, and many times faster than Node's WebCrypto for small bodies. */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** A key is a string (its UTF-8 bytes) or the key bytes themselves. */
export type HmacKey = string | Uint8Array;

export async function hmacSha256(key: HmacKey, data: Uint8Array): Promise<Uint8Array> {
  return createHmac('sha256', key).update(data).digest();
}

/** Constant-time comparison with timingSafeEqual. */
export async function hmacSha256Matches(key: HmacKey, data: Uint8Array, mac: Uint8Array): Promise<boolean> {
  const expected = createHmac('sha256', key).update(data).digest();
  return expected.length === mac.length && timingSafeEqual(expected, mac);
}
