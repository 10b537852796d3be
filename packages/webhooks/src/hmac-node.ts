/** HMAC-SHA256 with node:crypto: synchronous, and many times faster than Node's WebCrypto for small bodies. */
import { createHmac, timingSafeEqual } from 'node:crypto';

export async function hmacSha256(secret: string, data: Uint8Array): Promise<Uint8Array> {
  return createHmac('sha256', secret).update(data).digest();
}

/** Constant-time comparison with timingSafeEqual. */
export async function hmacSha256Matches(secret: string, data: Uint8Array, mac: Uint8Array): Promise<boolean> {
  const expected = createHmac('sha256', secret).update(data).digest();
  return expected.length === mac.length && timingSafeEqual(expected, mac);
}
