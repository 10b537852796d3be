/** The two HMAC implementations behind `#hmac` agree, byte for byte and on every mismatch. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as node from './hmac-node.js';
import * as web from './hmac-web.js';

describe('hmac-node and hmac-web', () => {
  it('compute the same HMAC-SHA256 and accept it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1 }), fc.uint8Array({ maxLength: 4096 }), async (secret, bytes) => {
        const data = new Uint8Array(bytes);
        const [a, b] = [await node.hmacSha256(secret, data), await web.hmacSha256(secret, data)];
        expect(Buffer.from(a).toString('hex')).toBe(Buffer.from(b).toString('hex'));
        expect(await node.hmacSha256Matches(secret, data, new Uint8Array(b))).toBe(true);
        expect(await web.hmacSha256Matches(secret, data, new Uint8Array(a))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('refuse a different, shorter or longer MAC', async () => {
    const data = new TextEncoder().encode('body');
    const mac = new Uint8Array(await node.hmacSha256('s', data));
    const flipped = mac.slice();
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    for (const impl of [node, web]) {
      expect(await impl.hmacSha256Matches('s', data, flipped)).toBe(false);
      expect(await impl.hmacSha256Matches('s', data, mac.slice(0, 31))).toBe(false);
      expect(await impl.hmacSha256Matches('s', data, new Uint8Array([...mac, 0]))).toBe(false);
      expect(await impl.hmacSha256Matches('other', data, mac)).toBe(false);
    }
  });
});
