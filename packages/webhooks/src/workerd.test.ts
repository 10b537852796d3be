/** @portico/webhooks in workerd: bundled for a neutral platform (WebCrypto), it signs and verifies as Node does. */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from './signature.js';
import { signStandard } from './standard-webhooks.js';
import { verify } from './verify.js';

let miniflare: Miniflare;

beforeAll(async () => {
  const worker = `
    import { createWebhookReceiver, sign, signStandard, verify } from './index.ts';
    const receiver = createWebhookReceiver({ secret: 'whsec_w', onEvent: () => {} });
    export default {
      async fetch(request) {
        const url = new URL(request.url);
        if (url.pathname === '/sign') {
          const { secret, body, t } = await request.json();
          return new Response(await sign(secret, body, t));
        }
        if (url.pathname === '/sign-standard') {
          const { secret, id, body, t } = await request.json();
          return new Response(await signStandard(secret, { id, timestamp: t, body }));
        }
        if (url.pathname === '/verify') {
          const { secret, body, header, now } = await request.json();
          return Response.json(await verify(secret, body, header, { now }));
        }
        return receiver.fetch(request);
      },
    };`;
  const result = await build({
    stdin: { contents: worker, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['source'],
    write: false,
  });
  miniflare = new Miniflare({
    modules: true,
    script: result.outputFiles[0]?.text ?? '',
    compatibilityDate: '2025-09-01',
  });
}, 60_000);
afterAll(() => miniflare?.dispose());

const call = async (path: string, body: unknown) =>
  miniflare.dispatchFetch(`http://worker.test${path}`, { method: 'POST', body: JSON.stringify(body) });

describe('@portico/webhooks in workerd', () => {
  it('signs as Node signs', async () => {
    const input = { secret: 'whsec_x', body: '{"eventId":"e1","type":"site_view"}', t: 1_767_225_600 };
    expect(await (await call('/sign', input)).text()).toBe(await sign(input.secret, input.body, input.t));
  });

  it('verifies what Node signs, and refuses a changed body', async () => {
    const body = '{"eventId":"e2"}';
    const header = await sign('whsec_x', body, 1_767_225_600);
    expect(await (await call('/verify', { secret: 'whsec_x', body, header, now: 1_767_225_610 })).json()).toBe(true);
    expect(
      await (await call('/verify', { secret: 'whsec_x', body: `${body} `, header, now: 1_767_225_610 })).json(),
    ).toBe(false);
    expect(await verify('whsec_x', body, header, { now: 1_767_225_610 })).toBe(true);
  });

  it('signs and verifies Standard Webhooks as Node does', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const input = { secret, id: 'dlv_w', body: '{"eventId":"e3"}', t: 1_767_225_600 };
    const signature = await signStandard(secret, { id: input.id, timestamp: input.t, body: input.body });
    expect(await (await call('/sign-standard', input)).text()).toBe(signature);
    const header = { 'webhook-id': input.id, 'webhook-timestamp': String(input.t), 'webhook-signature': signature };
    const now = input.t + 5;
    expect(await (await call('/verify', { secret, body: input.body, header, now })).json()).toBe(true);
    expect(await (await call('/verify', { secret, body: `${input.body} `, header, now })).json()).toBe(false);
  });

  it('runs the receiver: 200 for a signed delivery, 401 for a forged one', async () => {
    const body = JSON.stringify({ eventId: 'evt_w', type: 'site_view' });
    const ok = await miniflare.dispatchFetch('http://worker.test/hooks', {
      method: 'POST',
      body,
      headers: { 'X-Platform-Signature': await sign('whsec_w', body) },
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ received: true });
    const forged = await miniflare.dispatchFetch('http://worker.test/hooks', {
      method: 'POST',
      body,
      headers: { 'X-Platform-Signature': await sign('not-the-secret', body) },
    });
    expect(forged.status).toBe(401);
  });
});
