/**
 * Webhook deliveries end to end on the real server, on SQLite and PostgreSQL: the three event
 * types through the webhook integration, signatures that Stripe's verifier and the standardwebhooks
 * package accept, the retry
 * rules against scripted receivers, the delivery log, redelivery, and signing-secret rotation.
 */

import { createHmac, randomBytes } from 'node:crypto';
import { verify } from '@portico/webhooks';
import { createReceiverServer } from '@portico-examples/webhook-receiver';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { currentToken } from '../installations/tokens.js';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, startWebhookWorld, until, webhookWorldFor } from '../test-support/webhook-world.js';

const stripe = new Stripe('sk_test_unused');
const visitor = { anonymousId: 'anon_1', userAgent: 'Mozilla/5.0', ip: '192.0.2.7', cookies: { theme: 'dark' } };

describe.each(backends)('webhook deliveries on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);

  const finalState = (installation: string, eventId: string) =>
    until(`the delivery of ${eventId} to finish`, async () => {
      const { body } = await world.ada('GET', `/v1/installations/${installation}/deliveries?eventId=${eventId}`);
      return body[0] && body[0].status !== 'pending' ? body[0] : undefined;
    });

  it('delivers each of the three event types as exactly the spec 2.9 payload, signed so Stripe and Standard Webhooks verify it', async () => {
    const url = receiver.script('/events', [200]);
    await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { url, space_content_updated: true });
    await world.ada('PATCH', `/v1/installations/${world.site}/configuration`, {
      url,
      site_view: true,
      page_feedback: true,
    });
    const spaceSecret = (await world.ada('GET', `/v1/installations/${world.space}/signing-secret`)).body
      .secret as string;
    const siteSecret = (await world.ada('GET', `/v1/installations/${world.site}/signing-secret`)).body.secret as string;
    expect(spaceSecret).toMatch(/^whsec_/);

    const events = [
      { type: 'space_content_updated', eventId: 'evt_content', spaceId: 'docs', revisionId: 'rev_1' },
      {
        type: 'site_view',
        eventId: 'evt_view',
        siteId: 'site',
        visitor,
        url: 'https://docs.acme.test/p',
        referrer: 'https://search.test/?q=x',
      },
      {
        type: 'page_feedback',
        eventId: 'evt_feedback',
        siteId: 'site',
        spaceId: 'docs',
        pageId: 'page_1',
        feedback: { rating: 'good', comment: 'Clear and short.' },
        visitor,
        url: 'https://docs.acme.test/p',
        referrer: '',
      },
    ];
    for (const event of events) expect((await world.admin('POST', '/v1/events', event)).status).toBe(202);
    const received = await until('three deliveries', () =>
      receiver.at('/events').length >= 3 ? receiver.at('/events') : undefined,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.at('/events')).toHaveLength(3); // the organization installation delivers nothing

    for (const event of events) {
      const request = received.find((r) => JSON.parse(r.body).eventId === event.eventId);
      if (!request) throw new Error(`${event.eventId} was not delivered`);
      const installationId = event.type === 'space_content_updated' ? world.space : world.site;
      const { type, eventId, ...fields } = event;
      expect(JSON.parse(request.body)).toEqual({ eventId, type, installationId, ...fields });
      expect(Object.keys(JSON.parse(request.body))[0]).toBe('eventId');
      const secret = event.type === 'space_content_updated' ? spaceSecret : siteSecret;
      const header = request.headers['x-platform-signature'] as string;
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(stripe.webhooks.constructEvent(request.body, header, secret)).toEqual(JSON.parse(request.body));
      expect(await verify(secret, request.body, header)).toBe(true);
      expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toEqual(
        JSON.parse(request.body),
      );
      expect(await verify(secret, request.body, { ...request.headers, 'x-platform-signature': undefined })).toBe(true);
      // One message id per event and installation (DESIGN.md "Redelivery and ids"), not the delivery's.
      expect(request.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(request.headers['webhook-id']).not.toBe(request.headers['x-platform-delivery-id']);
      expect(request.headers['webhook-timestamp']).toBe(header.slice(2, header.indexOf(',')));
      expect(request.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'Portico-Webhooks/0.1.0',
        'x-platform-event-id': eventId,
        'x-platform-event-type': type,
        'x-platform-delivery-id': expect.stringMatching(/^dlv_/),
        'x-platform-delivery-attempt': '1',
      });
    }
    const log = await finalState(world.space, 'evt_content');
    expect(log).toMatchObject({
      status: 'delivered',
      url,
      type: 'space_content_updated',
      attempts: [{ number: 1, status: 200, error: null }],
    });
    expect(log.attempts[0].response).toBe('{"answered":200}');
  }, 60_000);

  it('sends nothing for events the configuration does not select', async () => {
    await world.ada('PATCH', `/v1/installations/${world.site}/configuration`, { site_view: false });
    const before = receiver.at('/events').length;
    await world.admin('POST', '/v1/events', {
      type: 'site_view',
      eventId: 'evt_unselected',
      siteId: 'site',
      visitor,
      url: 'u',
      referrer: '',
    });
    await world.admin('POST', '/v1/events', {
      type: 'page_feedback',
      eventId: 'evt_selected',
      siteId: 'site',
      spaceId: 'docs',
      pageId: 'p',
      feedback: { rating: 'bad', comment: '' },
      visitor,
      url: 'u',
      referrer: '',
    });
    await until('the selected event', () =>
      receiver.at('/events').some((r) => r.body.includes('evt_selected')) ? true : undefined,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(
      receiver
        .at('/events')
        .slice(before)
        .map((r) => JSON.parse(r.body).eventId),
    ).toEqual(['evt_selected']);
  }, 30_000);

  it('retries 5xx, 429, timeouts, resets and refused connections; fails 4xx and 3xx at once; gives up after four', async () => {
    const deliver = client(world.platform.url, world.spaceToken);
    const refused = `http://127.0.0.1:${await closedPort()}/refused`;
    const cases = {
      recovers: { url: receiver.script('/recovers', [500, 500, 200]), requests: 3, status: 'delivered' },
      throttled: { url: receiver.script('/throttled', [429, 200]), requests: 2, status: 'delivered' },
      bad: { url: receiver.script('/bad', [400]), requests: 1, status: 'failed' },
      missing: { url: receiver.script('/missing', [404]), requests: 1, status: 'failed' },
      moved: { url: receiver.script('/moved', [301]), requests: 1, status: 'failed' },
      hangs: { url: receiver.script('/hangs', ['hang', 200]), requests: 2, status: 'delivered' },
      resets: { url: receiver.script('/resets', ['reset', 200]), requests: 2, status: 'delivered' },
      down: { url: receiver.script('/down', [500, 500, 500, 500, 200]), requests: 4, status: 'failed' },
      refused: { url: refused, requests: 0, status: 'failed' },
    } as const;
    for (const [name, c] of Object.entries(cases)) {
      const answer = await deliver('POST', `/v1/installations/${world.space}/deliveries`, {
        url: c.url,
        eventId: `evt_${name}`,
        type: 'test',
        payload: { eventId: `evt_${name}`, n: 1 },
      });
      expect(answer.status).toBe(202);
    }
    for (const [name, c] of Object.entries(cases)) {
      const log = await finalState(world.space, `evt_${name}`);
      expect({ name, status: log.status }).toEqual({ name, status: c.status });
      if (name !== 'refused')
        expect({ name, requests: receiver.at(`/${name}`).length }).toEqual({ name, requests: c.requests });
      expect(log.attempts).toHaveLength(name === 'refused' ? 4 : c.requests);
    }
    expect(receiver.at('/redirected')).toEqual([]); // the redirect was not followed

    // The gaps between attempts fall in their windows: 1.0-1.1 s, 2.0-2.2 s, 4.0-4.4 s after the
    // previous attempt ended (measured at the receiver, with room for scheduling on a busy machine).
    const times = receiver.at('/down').map((r) => r.at);
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    for (const [i, base] of [1000, 2000, 4000].entries()) {
      expect(gaps[i]).toBeGreaterThanOrEqual(base);
      expect(gaps[i]).toBeLessThan(base * 1.1 + 1000);
    }
    const down = await finalState(world.space, 'evt_down');
    expect(down.lastError).toMatch(/gave up after 4 attempts: the receiver answered 500/);
    expect(down.attempts.map((a: { number: number; status: number }) => [a.number, a.status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
      [4, 500],
    ]);
    const hang = await finalState(world.space, 'evt_hangs');
    expect(hang.attempts[0]).toMatchObject({ status: null, error: 'no answer within 1 s' });
    const refusedLog = await finalState(world.space, 'evt_refused');
    expect(refusedLog.attempts[0].error).toMatch(/ECONNREFUSED/);
  }, 60_000);

  it('redelivers with the same body and eventId, as a new delivery', async () => {
    const first = await finalState(world.space, 'evt_recovers');
    const again = await world.ada('POST', `/v1/deliveries/${first.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ eventId: 'evt_recovers', redeliveryOf: first.id, status: 'pending' });
    await until('the redelivery', () => (receiver.at('/recovers').length >= 4 ? true : undefined));
    const bodies = receiver.at('/recovers').map((r) => r.body);
    expect(new Set(bodies).size).toBe(1);
    const all = await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=evt_recovers`);
    expect(all.body).toHaveLength(2);
  }, 30_000);

  it('pages and filters the delivery log', async () => {
    const failed = await world.ada('GET', `/v1/installations/${world.space}/deliveries?status=failed&limit=2`);
    expect(failed.body).toHaveLength(2);
    expect(failed.body.every((d: { status: string }) => d.status === 'failed')).toBe(true);
    const page1 = await fetch(`${world.platform.url}/v1/installations/${world.space}/deliveries?limit=3`, {
      headers: { authorization: `Bearer ${world.spaceToken}` },
    });
    const next = page1.headers.get('x-next-cursor');
    expect(next).toBeTruthy();
    const page2 = await client(world.platform.url, world.spaceToken)(
      'GET',
      `/v1/installations/${world.space}/deliveries?limit=3&cursor=${next}`,
    );
    const ids1 = ((await page1.json()) as { id: string }[]).map((d) => d.id);
    expect(page2.body.map((d: { id: string }) => d.id).filter((id: string) => ids1.includes(id))).toEqual([]);
    expect((await world.ada('GET', `/v1/installations/${world.space}/deliveries?status=lost`)).status).toBe(400);
    expect((await world.ada('GET', `/v1/installations/${world.space}/deliveries?cursor=bogus`)).status).toBe(400);
  });

  it('signs with both secrets for 24 h after a rotation', async () => {
    const old = (await world.ada('GET', `/v1/installations/${world.space}/signing-secret`)).body.secret;
    const fresh = (await world.ada('POST', `/v1/installations/${world.space}/signing-secret/rotate`)).body.secret;
    expect(fresh).not.toBe(old);
    expect((await world.ada('GET', `/v1/installations/${world.space}/signing-secret`)).body.secret).toBe(fresh);
    const url = receiver.script('/rotated', [200]);
    await client(world.platform.url, world.spaceToken)('POST', `/v1/installations/${world.space}/deliveries`, {
      url,
      eventId: 'evt_rotated',
      type: 'test',
      payload: { eventId: 'evt_rotated' },
    });
    const [request] = await until('the delivery after rotation', () =>
      receiver.at('/rotated').length ? receiver.at('/rotated') : undefined,
    );
    const body = request?.body ?? '';
    const header = request?.headers['x-platform-signature'] as string;
    const standard = request?.headers as Record<string, string>;
    // One entry per secret, the new one first, in each scheme with the key bytes the README names.
    const t = header.slice(2, header.indexOf(','));
    expect(standard['webhook-timestamp']).toBe(t);
    const stripeEntry = (secret: string) => createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    const standardEntry = (secret: string) =>
      createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
        .update(`${standard['webhook-id']}.${t}.${body}`)
        .digest('base64');
    expect(header).toBe(`t=${t},v1=${stripeEntry(fresh)},v1=${stripeEntry(old)}`);
    expect(standard['webhook-signature']).toBe(`v1,${standardEntry(fresh)} v1,${standardEntry(old)}`);
    // The same delivery is accepted by Stripe's verifier and the standardwebhooks package with
    // either secret, and by neither with a secret that is not one of them.
    for (const secret of [fresh, old]) {
      expect(await verify(secret, body, header)).toBe(true);
      expect(stripe.webhooks.constructEvent(body, header, secret)).toEqual({ eventId: 'evt_rotated' });
      expect(new Webhook(secret).verify(body, standard)).toEqual({ eventId: 'evt_rotated' });
    }
    const stranger = `whsec_${randomBytes(32).toString('base64')}`;
    expect(() => stripe.webhooks.constructEvent(body, header, stranger)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    expect(() => new Webhook(stranger).verify(body, standard)).toThrow(WebhookVerificationError);
  }, 30_000);

  it('keeps deliveries and secrets to the installation and its organization', async () => {
    const carolToken = (await world.admin('POST', '/v1/users', { id: `carol-${backend.name}`, name: 'Carol' })).body
      .token;
    const carol = client(world.platform.url, carolToken);
    expect((await carol('GET', `/v1/installations/${world.space}/deliveries`)).status).toBe(403);
    expect((await carol('GET', `/v1/installations/${world.space}/signing-secret`)).status).toBe(403);
    const siteToken = client(world.platform.url, await currentToken(world.platform.ctx, world.site));
    expect((await siteToken('GET', `/v1/installations/${world.space}/signing-secret`)).status).toBe(403);
    expect(
      (
        await siteToken('POST', `/v1/installations/${world.space}/deliveries`, {
          url: 'https://x.test',
          eventId: 'e',
          type: 't',
          payload: {},
        })
      ).status,
    ).toBe(403);
  });
});

describe('the egress guard, end to end', () => {
  it('fails a delivery to an internal address at once, without retrying, when private networks are not allowed', async () => {
    const world = await startWebhookWorld(backends[0] as (typeof backends)[number], { allowPrivateNetwork: false });
    try {
      const deliver = client(world.platform.url, world.spaceToken);
      for (const [eventId, url] of [
        ['evt_metadata', 'https://169.254.169.254/latest/meta-data/'],
        ['evt_loopback', 'https://127.0.0.1:9/hook'],
        ['evt_plain_http', 'http://example.com/hook'],
      ]) {
        expect(
          (
            await deliver('POST', `/v1/installations/${world.space}/deliveries`, {
              url,
              eventId,
              type: 'test',
              payload: { eventId },
            })
          ).status,
        ).toBe(202);
        const log = await until(`${eventId} to fail`, async () => {
          const { body } = await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=${eventId}`);
          return body[0]?.status === 'failed' ? body[0] : undefined;
        });
        expect(log.attempts).toHaveLength(1);
        expect(log.lastError).toMatch(/^refused: /);
      }
    } finally {
      await world.close();
    }
  }, 30_000);
});

describe('the reference receiver', () => {
  it('verifies, answers at once, drops a repeated eventId, and refuses a bad signature', async () => {
    const world = await startWebhookWorld(backends[0] as (typeof backends)[number]);
    const worked: string[] = [];
    const secret = (await world.ada('GET', `/v1/installations/${world.space}/signing-secret`)).body.secret;
    const server = createReceiverServer({ secret, work: (event) => void worked.push(event.eventId) });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    try {
      await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { url, space_content_updated: true });
      await world.admin('POST', '/v1/events', {
        type: 'space_content_updated',
        eventId: 'evt_ref',
        spaceId: 'docs',
        revisionId: 'r',
      });
      await until('the work', () => (worked.length ? worked : undefined));
      const log = await until('delivered', async () => {
        const { body } = await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=evt_ref`);
        return body[0]?.status === 'delivered' ? body[0] : undefined;
      });
      expect(log.attempts[0].response).toBe('{"received":true}');
      // A redelivery of the same eventId is answered 200 but not worked twice.
      await world.ada('POST', `/v1/deliveries/${log.id}/redeliver`);
      await until('the redelivery', async () => {
        const { body } = await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=evt_ref`);
        return body.length === 2 && body.every((d: { status: string }) => d.status === 'delivered') ? body : undefined;
      });
      expect(worked).toEqual(['evt_ref']);
      // After a rotation the receiver, still on the old secret, keeps verifying for 24 h.
      await world.ada('POST', `/v1/installations/${world.space}/signing-secret/rotate`);
      await world.admin('POST', '/v1/events', {
        type: 'space_content_updated',
        eventId: 'evt_ref_2',
        spaceId: 'docs',
        revisionId: 'r',
      });
      await until('the second work', () => (worked.length === 2 ? worked : undefined));
      // A forged request: 401 with a JSON error.
      const forged = await fetch(url, {
        method: 'POST',
        body: '{"eventId":"x"}',
        headers: { 'x-platform-signature': 't=1,v1=00' },
      });
      expect(forged.status).toBe(401);
      expect(await forged.json()).toEqual({ error: expect.any(String) });
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
      await world.close();
    }
  }, 60_000);
});

async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
