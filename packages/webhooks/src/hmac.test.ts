/** The two HMAC implementations behind `#hmac` agree, byte for byte and on every mismatch. */
import { createHmac } from 'node:crypto';
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

  it('key with bytes as given, as they key with a string by its UTF-8 bytes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 80 }),
        fc.uint8Array({ maxLength: 512 }),
        async (k, d) => {
          const [key, data] = [new Uint8Array(k), new Uint8Array(d)];
          const expected = createHmac('sha256', key).update(data).digest('hex');
          expect(Buffer.from(await node.hmacSha256(key, data)).toString('hex')).toBe(expected);
          expect(Buffer.from(await web.hmacSha256(key, data)).toString('hex')).toBe(expected);
          expect(await web.hmacSha256Matches(key, data, new Uint8Array(Buffer.from(expected, 'hex')))).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
    const text = 'whsec_x';
    const data = new Uint8Array([1, 2, 3]);
    const asText = Buffer.from(await web.hmacSha256(text, data)).toString('hex');
    const asBytes = Buffer.from(await web.hmacSha256(new TextEncoder().encode(text), data)).toString('hex');
    expect(asBytes).toBe(asText);
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
