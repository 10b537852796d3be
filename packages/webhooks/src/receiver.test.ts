import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryDedupeStore } from './dedupe-store.js';
import { toNodeListener } from './node.js';
import { createWebhookReceiver, type WebhookEvent } from './receiver.js';
import { sign } from './signature.js';
import { signStandard } from './standard-webhooks.js';

const secret = 'whsec_receiver';
const event = { eventId: 'evt_1', type: 'site_view', installationId: 'inst_1', siteId: 'site_1' };

function delivery(body: string, header?: string | Promise<string>, init: RequestInit = {}) {
  return Promise.resolve(header ?? sign(secret, body)).then(
    (signature) =>
      new Request('http://receiver.test/hooks', {
        method: 'POST',
        body,
        ...init,
        headers: { 'content-type': 'application/json', 'X-Platform-Signature': signature, ...init.headers },
      }),
  );
}

describe('createWebhookReceiver (fetch)', () => {
  it('verifies, hands the event over once, and answers 200 { received: true }', async () => {
    const received: WebhookEvent[] = [];
    const receiver = createWebhookReceiver({ secret, onEvent: (e) => void received.push(e) });
    const body = JSON.stringify(event);
    const response = await receiver.fetch(await delivery(body));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(received).toEqual([event]);
  });

  it('drops a repeated eventId within the window, still answering 200', async () => {
    const received: string[] = [];
    const receiver = createWebhookReceiver({ secret, onEvent: (e) => void received.push(e.eventId) });
    const body = JSON.stringify(event);
    await receiver.fetch(await delivery(body));
    const again = await receiver.fetch(await delivery(body));
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(received).toEqual(['evt_1']);
  });

  it('answers 401 { error } for a bad or missing signature and never calls the handler', async () => {
    let calls = 0;
    const receiver = createWebhookReceiver({ secret, onEvent: () => void calls++ });
    const body = JSON.stringify(event);
    const forged = await receiver.fetch(await delivery(body, sign('wrong-secret', body)));
    expect(forged.status).toBe(401);
    expect(await forged.json()).toEqual({ error: expect.stringMatching(/^invalid signature/) });
    const tampered = await receiver.fetch(await delivery(body.replace('site_1', 'site_2'), sign(secret, body)));
    expect(tampered.status).toBe(401);
    const stale = await receiver.fetch(await delivery(body, sign(secret, body, Math.floor(Date.now() / 1000) - 301)));
    expect(stale.status).toBe(401);
    const unsigned = await receiver.fetch(new Request('http://receiver.test/hooks', { method: 'POST', body }));
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toEqual({
      error: 'missing signature: neither X-Platform-Signature nor webhook-signature is present',
    });
    expect(calls).toBe(0);
  });

  it('accepts a delivery that carries only the Standard Webhooks headers, and refuses a forged one', async () => {
    const received: string[] = [];
    const receiver = createWebhookReceiver({ secret, onEvent: (e) => void received.push(e.eventId) });
    const body = JSON.stringify(event);
    const standard = async (signWith: string, id = 'dlv_1', timestamp = Math.floor(Date.now() / 1000)) =>
      new Request('http://receiver.test/hooks', {
        method: 'POST',
        body,
        headers: {
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': await signStandard(signWith, { id, timestamp, body }),
        },
      });
    const forged = await receiver.fetch(await standard('whsec_b3RoZXI='));
    expect(forged.status).toBe(401);
    const stale = await receiver.fetch(await standard(secret, 'dlv_1', Math.floor(Date.now() / 1000) - 301));
    expect(stale.status).toBe(401);
    expect(received).toEqual([]);
    const response = await receiver.fetch(await standard(secret));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(received).toEqual(['evt_1']);
  });

  it('answers 405 to other methods, 413 to large bodies and 400 to bodies without an eventId', async () => {
    const receiver = createWebhookReceiver({ secret, onEvent: () => {}, maxBodyBytes: 100 });
    expect((await receiver.fetch(new Request('http://receiver.test/hooks'))).status).toBe(405);
    const large = JSON.stringify({ ...event, padding: 'x'.repeat(200) });
    const tooLarge = await receiver.fetch(await delivery(large));
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toEqual({ error: 'body larger than 100 bytes' });
    expect((await receiver.fetch(await delivery('not json'))).status).toBe(400);
    expect((await receiver.fetch(await delivery('{"type":"x"}'))).status).toBe(400);
  });

  it('answers 500 when the handler throws, and processes the retry of that event', async () => {
    let attempts = 0;
    const receiver = createWebhookReceiver({
      secret,
      onEvent: () => {
        attempts++;
        if (attempts === 1) throw new Error('database down');
      },
    });
    const body = JSON.stringify(event);
    const failed = await receiver.fetch(await delivery(body));
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: 'the event could not be processed' });
    expect((await receiver.fetch(await delivery(body))).status).toBe(200);
    expect(attempts).toBe(2);
  });

  it('forgets an eventId after the dedupe window', async () => {
    let clock = 0;
    const store = new MemoryDedupeStore(() => clock);
    const seen: string[] = [];
    const receiver = createWebhookReceiver({ secret, onEvent: (e) => void seen.push(e.eventId), dedupe: { store } });
    const body = JSON.stringify(event);
    await receiver.fetch(await delivery(body));
    clock = 119_999;
    await receiver.fetch(await delivery(body));
    clock = 120_000;
    await receiver.fetch(await delivery(body));
    expect(seen).toEqual(['evt_1', 'evt_1']);
    expect(store.size).toBe(1);
  });
});

describe('MemoryDedupeStore', () => {
  it('prunes expired ids as it is used', async () => {
    let clock = 0;
    const store = new MemoryDedupeStore(() => clock);
    for (let i = 0; i < 1000; i++) await store.claim(`evt_${i}`, 1000);
    expect(store.size).toBe(1000);
    clock = 1000;
    await store.claim('fresh', 1000);
    expect(store.size).toBe(1);
  });
});

describe('toNodeListener on a real HTTP server', () => {
  const received: WebhookEvent[] = [];
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const receiver = createWebhookReceiver({ secret, onEvent: (e) => void received.push(e), maxBodyBytes: 64 * 1024 });
    server = createServer(toNodeListener(receiver));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('receives a signed delivery over HTTP', async () => {
    const body = JSON.stringify({ ...event, eventId: 'evt_http', note: 'ünïcødé ✓' });
    const response = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'X-Platform-Signature': await sign(secret, body) },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(received.at(-1)).toEqual(JSON.parse(body));
  });

  it('answers 401 with a JSON error over HTTP', async () => {
    const body = JSON.stringify(event);
    const response = await fetch(url, { method: 'POST', body, headers: { 'X-Platform-Signature': 't=1,v1=00' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
  });

  it('refuses a body over the limit and keeps serving', async () => {
    const body = 'x'.repeat(200 * 1024);
    const response = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'X-Platform-Signature': await sign(secret, body) },
    });
    expect(response.status).toBe(413);
    const next = JSON.stringify({ ...event, eventId: 'evt_after' });
    const ok = await fetch(url, {
      method: 'POST',
      body: next,
      headers: { 'X-Platform-Signature': await sign(secret, next) },
    });
    expect(ok.status).toBe(200);
  });
});
