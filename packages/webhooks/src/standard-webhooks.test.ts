/**
 * Standard Webhooks signing and verification, checked against the real `standardwebhooks`
 * package (its `Webhook.verify` and `Webhook.sign`) and against Node's own HMAC.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { sign } from './signature.js';
import { parseStandardSignature, signStandard, standardSecretKey, verifyStandard } from './standard-webhooks.js';
import { verify } from './verify.js';

const key = randomBytes(32);
/** A secret as Portico makes them: `whsec_` and the standard base64 of 32 random bytes. */
const secret = `whsec_${key.toString('base64')}`;
const body = JSON.stringify({ eventId: 'evt_1', type: 'site_view', siteId: 's1' });
const id = 'dlv_0123456789';
const t = Math.floor(Date.now() / 1000);

/** An independent oracle: Node's HMAC over "<id>.<t>.<body>", keyed with the key bytes. */
const oracle = (k: Buffer, msgId: string, ts: number, payload: string) =>
  `v1,${createHmac('sha256', k).update(`${msgId}.${ts}.${payload}`).digest('base64')}`;

const headersOf = (signature: string, ts = t, msgId = id) => ({
  'webhook-id': msgId,
  'webhook-timestamp': String(ts),
  'webhook-signature': signature,
});

describe('standardSecretKey', () => {
  it('is the bytes the base64 after whsec_ encodes, in either alphabet, padded or not', () => {
    expect(Buffer.from(standardSecretKey(secret) ?? [])).toEqual(key);
    expect(Buffer.from(standardSecretKey(key.toString('base64')) ?? [])).toEqual(key);
    expect(Buffer.from(standardSecretKey(`whsec_${key.toString('base64url')}`) ?? [])).toEqual(key);
  });

  it('is undefined for text that is not base64, and for an empty key', () => {
    expect(standardSecretKey('whsec_not base64!')).toBeUndefined();
    expect(standardSecretKey('whsec_')).toBeUndefined();
    expect(standardSecretKey('whsec_a')).toBeUndefined();
  });
});

describe('signStandard', () => {
  it('writes v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>"> keyed with the key bytes', async () => {
    expect(await signStandard(secret, { id, timestamp: t, body })).toBe(oracle(key, id, t, body));
  });

  it('is accepted by the standardwebhooks package, which refuses a changed body, id or timestamp', async () => {
    const signature = await signStandard(secret, { id, timestamp: t, body });
    const webhook = new Webhook(secret);
    expect(webhook.verify(body, headersOf(signature))).toEqual(JSON.parse(body));
    expect(() => webhook.verify(`${body} `, headersOf(signature))).toThrow(WebhookVerificationError);
    expect(() => webhook.verify(body, headersOf(signature, t, 'dlv_other'))).toThrow(WebhookVerificationError);
    expect(() => webhook.verify(body, headersOf(signature, t + 1))).toThrow(WebhookVerificationError);
  });

  it('writes one entry per secret, newest first, each accepted by the package on its own', async () => {
    const old = `whsec_${randomBytes(32).toString('base64')}`;
    const signature = await signStandard([secret, old], { id, timestamp: t, body });
    expect(signature.split(' ')).toHaveLength(2);
    expect(signature.split(' ')[0]).toBe(oracle(key, id, t, body));
    for (const s of [secret, old]) expect(new Webhook(s).verify(body, headersOf(signature))).toEqual(JSON.parse(body));
    const stranger = new Webhook(`whsec_${randomBytes(32).toString('base64')}`);
    expect(() => stranger.verify(body, headersOf(signature))).toThrow(/No matching signature/);
  });

  it('signs once for two spellings of the same key', async () => {
    const legacy = `whsec_${key.toString('base64url')}`;
    expect(await signStandard([secret, legacy], { id, timestamp: t, body })).toBe(oracle(key, id, t, body));
  });

  it('refuses no secret, a secret that is not base64, a bad id and a bad timestamp', async () => {
    await expect(signStandard([], { id, timestamp: t, body })).rejects.toThrow(/at least one secret/);
    await expect(signStandard('whsec_$$$', { id, timestamp: t, body })).rejects.toThrow(/base64 key bytes/);
    await expect(signStandard(secret, { id: 'a b', timestamp: t, body })).rejects.toThrow(/the id must be/);
    await expect(signStandard(secret, { id: '', timestamp: t, body })).rejects.toThrow(/the id must be/);
    await expect(signStandard(secret, { id, timestamp: 1.5, body })).rejects.toThrow(/whole Unix seconds/);
  });
});

describe('verifyStandard', () => {
  const webhook = new Webhook(secret);
  const theirs = (msgId = id, ts = t, payload = body) => webhook.sign(msgId, new Date(ts * 1000), payload);
  const as = (signature: string, ts = t, msgId = id) => ({ id: msgId, timestamp: String(ts), signature });

  it('accepts what the standardwebhooks package signs, with the same secret text', async () => {
    expect(await verifyStandard(secret, body, as(theirs()))).toBe(true);
    expect(await verifyStandard(['whsec_AAAA', secret], body, as(theirs()))).toBe(true);
  });

  it('refuses another secret, a changed body, id or timestamp', async () => {
    expect(await verifyStandard(`whsec_${randomBytes(32).toString('base64')}`, body, as(theirs()))).toBe(false);
    expect(await verifyStandard(secret, `${body} `, as(theirs()))).toBe(false);
    expect(await verifyStandard(secret, body, as(theirs(), t, 'dlv_other'))).toBe(false);
    expect(await verifyStandard(secret, body, as(theirs(), t + 1))).toBe(false);
  });

  it('applies the tolerance in both directions (300 s by default)', async () => {
    const signature = theirs();
    expect(await verifyStandard(secret, body, as(signature), { now: t + 300 })).toBe(true);
    expect(await verifyStandard(secret, body, as(signature), { now: t - 300 })).toBe(true);
    expect(await verifyStandard(secret, body, as(signature), { now: t + 301 })).toBe(false);
    expect(await verifyStandard(secret, body, as(signature), { now: t - 301 })).toBe(false);
  });

  it('answers false for missing or malformed headers', async () => {
    const good = theirs();
    for (const headers of [
      { id: undefined, timestamp: String(t), signature: good },
      { id, timestamp: null, signature: good },
      { id, timestamp: String(t), signature: undefined },
      { id, timestamp: 'soon', signature: good },
      { id, timestamp: String(t), signature: good.replace('v1,', 'v2,') },
      { id, timestamp: String(t), signature: 'v1,abc' },
      { id, timestamp: String(t), signature: `${'v1,x '.repeat(3000)}` },
    ]) {
      expect(await verifyStandard(secret, body, headers)).toBe(false);
    }
    expect(parseStandardSignature(`v1a,x v1,${good.slice(3)}  v2,zz`)).toHaveLength(1);
  });
});

describe('verify, given the request headers', () => {
  const platformOnly = async () => ({ 'x-platform-signature': await sign(secret, body) });
  const standardOnly = async () => headersOf(await signStandard(secret, { id, timestamp: t, body }));

  it('accepts either header set, in a record or in web Headers', async () => {
    expect(await verify(secret, body, await platformOnly())).toBe(true);
    expect(await verify(secret, body, await standardOnly())).toBe(true);
    expect(await verify(secret, body, new Headers(await standardOnly()))).toBe(true);
    expect(await verify(secret, body, new Headers(await platformOnly()))).toBe(true);
  });

  it('accepts one secret text for both: Stripe keys it as UTF-8 text, Standard Webhooks as key bytes', async () => {
    const header = await sign(secret, body);
    expect(new Stripe('sk_test_unused').webhooks.constructEvent(body, header, secret)).toEqual(JSON.parse(body));
    expect(new Webhook(secret).verify(body, await standardOnly())).toEqual(JSON.parse(body));
  });

  it('refuses no signature, a wrong secret and a forged set beside a good one signed with another secret', async () => {
    expect(await verify(secret, body, {})).toBe(false);
    expect(await verify(secret, body, new Headers())).toBe(false);
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    expect(await verify(other, body, { ...(await platformOnly()), ...(await standardOnly()) })).toBe(false);
    expect(await verify(secret, body, { 'x-platform-signature': 't=1,v1=00', ...headersOf('v1,forged') })).toBe(false);
  });
});
