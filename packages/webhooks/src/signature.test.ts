import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { parseSignatureHeader, sign } from './signature.js';
import { verify } from './verify.js';

const secret = 'whsec_test_secret';
const body = JSON.stringify({ eventId: 'evt_1', type: 'space_content_updated', spaceId: 's1', revisionId: 'r1' });
const t = 1_767_225_600; // 2026-01-01T00:00:00Z

/** An independent oracle: Node's own HMAC over "<t>.<body>". */
const hmac = (key: string, timestamp: number, payload: string | Buffer) =>
  createHmac('sha256', key).update(`${timestamp}.`).update(payload).digest('hex');

describe('sign', () => {
  it('writes t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> keyed with the secret', async () => {
    expect(await sign(secret, body, t)).toBe(`t=${t},v1=${hmac(secret, t, body)}`);
  });

  it('uses the current time by default', async () => {
    const before = Math.floor(Date.now() / 1000);
    const parsed = parseSignatureHeader(await sign(secret, body));
    expect(parsed?.timestamp).toBeGreaterThanOrEqual(before);
    expect(parsed?.timestamp).toBeLessThanOrEqual(before + 2);
  });

  it('writes one v1 per secret, newest first, during a rotation', async () => {
    expect(await sign(['new-secret', 'old-secret'], body, t)).toBe(
      `t=${t},v1=${hmac('new-secret', t, body)},v1=${hmac('old-secret', t, body)}`,
    );
  });

  it('signs bytes exactly as given', async () => {
    const bytes = new Uint8Array([0, 255, 10, 13, 0xc3, 0x28]);
    expect(await sign(secret, bytes, t)).toBe(`t=${t},v1=${hmac(secret, t, Buffer.from(bytes))}`);
    expect(await sign(secret, bytes.buffer, t)).toBe(await sign(secret, bytes, t));
  });

  it('refuses no secret, an empty secret and a bad timestamp', async () => {
    await expect(sign([], body)).rejects.toThrow(/at least one secret/);
    await expect(sign('', body)).rejects.toThrow(/non-empty strings/);
    await expect(sign(secret, body, 1.5)).rejects.toThrow(/whole Unix seconds/);
  });
});

describe('verify', () => {
  const now = t + 10;

  it('accepts a signature made by sign', async () => {
    expect(await verify(secret, body, await sign(secret, body, t), { now })).toBe(true);
  });

  it('refuses another secret, a changed body, and a re-serialised JSON body', async () => {
    const header = await sign(secret, body, t);
    expect(await verify('other', body, header, { now })).toBe(false);
    expect(await verify(secret, `${body} `, header, { now })).toBe(false);
    expect(await verify(secret, JSON.stringify(JSON.parse(body), null, 2), header, { now })).toBe(false);
  });

  it('accepts any matching v1 and a list of secrets (rotation on either side)', async () => {
    const rotated = await sign(['new', 'old'], body, t);
    expect(await verify('old', body, rotated, { now })).toBe(true);
    expect(await verify('new', body, rotated, { now })).toBe(true);
    expect(await verify(['unrelated', 'old'], body, await sign('old', body, t), { now })).toBe(true);
  });

  it('applies the tolerance in both directions (300 s by default)', async () => {
    const header = await sign(secret, body, t);
    expect(await verify(secret, body, header, { now: t + 300 })).toBe(true);
    expect(await verify(secret, body, header, { now: t - 300 })).toBe(true);
    expect(await verify(secret, body, header, { now: t + 301 })).toBe(false);
    expect(await verify(secret, body, header, { now: t - 301 })).toBe(false);
    expect(await verify(secret, body, header, { now: t + 1000, toleranceSeconds: 1000 })).toBe(true);
  });

  const malformed: [string, string | null | undefined][] = [
    ['no header', undefined],
    ['a null header', null],
    ['an empty header', ''],
    ['no t', 'v1=00'],
    ['no v1', `t=${t}`],
    ['a non-numeric t', 'TBD'],
    ['a v1 of the wrong length', `t=${t},v1=abc`],
    ['a v1 that is not hex', `t=${t},v1=${'z'.repeat(64)}`],
    ['only another scheme', `t=${t},v0=${'0'.repeat(64)}`],
    ['two timestamps', `t=${t},t=${t},v1=${'0'.repeat(64)}`],
    ['a huge header', `t=${t},${'v1=00,'.repeat(5000)}`],
  ];
  for (const [label, header] of malformed) {
    it(`answers false for ${label}`, async () => {
      expect(await verify(secret, body, header, { now })).toBe(false);
    });
  }

  it('answers false, never throws, for nonsense arguments', async () => {
    const nonsense = verify as unknown as (...args: unknown[]) => Promise<boolean>;
    expect(await nonsense(undefined, body, await sign(secret, body, t), { now })).toBe(false);
    expect(await nonsense(secret, 42, await sign(secret, body, t), { now })).toBe(false);
    expect(await nonsense(secret, body, { t }, { now })).toBe(false);
  });
});

describe('compatibility with Stripe-style verifiers', () => {
  const stripe = new Stripe('sk_test_unused');
  const now = t + 1;

  it('a header made by sign verifies with stripe.webhooks.constructEvent', async () => {
    const header = await sign(secret, body);
    expect(stripe.webhooks.constructEvent(body, header, secret)).toEqual(JSON.parse(body));
  });

  it('a header made by Stripe verifies with verify', async () => {
    const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: t });
    expect(await verify(secret, body, header, { now })).toBe(true);
    expect(await verify(secret, `${body}\n`, header, { now })).toBe(false);
  });
});
