/**
 * An installation's own delivery headers, on SQLite and PostgreSQL: set with the URL in the webhook
 * integration's configuration, sent with every attempt (retries, test events, redeliveries) beside
 * the signature headers; refused with a 400 that names the header and how to fix it, changing
 * nothing, when they would override what the platform sets or are not headers.
 */
import { verify } from '@portico/webhooks';
import { describe, expect, it } from 'vitest';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';

describe.each(backends)('custom delivery headers on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);
  const configure = (body: Record<string, unknown>) =>
    world.ada('PATCH', `/v1/installations/${world.space}/configuration`, body);

  it('sends the configured headers with every attempt, the test event and a redelivery', async () => {
    const url = receiver.script('/custom', [503, 200]);
    const saved = await configure({
      url,
      space_content_updated: true,
      headers: 'Authorization: Bearer t0k3n\nX-Tenant-Id: acme',
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.configuration.headers).toBe('Authorization: Bearer t0k3n\nX-Tenant-Id: acme');
    await world.admin('POST', '/v1/events', {
      type: 'space_content_updated',
      eventId: 'evt_custom',
      spaceId: 'docs',
      revisionId: 'r1',
    });
    const attempts = await until('two attempts', () =>
      receiver.at('/custom').length === 2 ? receiver.at('/custom') : undefined,
    );
    const secret = (await world.ada('GET', `/v1/installations/${world.space}/signing-secret`)).body.secret as string;
    for (const attempt of attempts) {
      expect(attempt.headers).toMatchObject({
        authorization: 'Bearer t0k3n',
        'x-tenant-id': 'acme',
        'content-type': 'application/json',
      });
      expect(await verify(secret, attempt.body, attempt.headers)).toBe(true);
    }
    const test = await world.ada('POST', `/v1/installations/${world.space}/test-delivery`);
    expect(test.status).toBe(202);
    await until('the test event', () => (receiver.at('/custom').length === 3 ? true : undefined));
    expect(receiver.at('/custom')[2]?.headers.authorization).toBe('Bearer t0k3n');

    const [delivery] = (await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=evt_custom`)).body;
    expect((await world.ada('POST', `/v1/deliveries/${delivery.id}/redeliver`)).status).toBe(202);
    await until('the redelivery', () => (receiver.at('/custom').length === 4 ? true : undefined));
    expect(receiver.at('/custom')[3]?.headers['x-tenant-id']).toBe('acme');
  }, 30_000);

  it.each([
    ['X-Platform-Signature: t=1,v1=00', /"X-Platform-Signature" is one of the platform's own headers/],
    ['webhook-id: mine', /"webhook-id" is one of the platform's own headers/],
    ['Content-Type: text/plain', /"Content-Type" is set by the platform for every delivery: remove it/],
    ['Bad Name: v', /"Bad Name" is not a header name/],
    ['X-Ok: fine\nno colon', /line 2 \("no colon"\) is not "Name: value"/],
  ])('refuses headers %j in the configuration with a 400, saving nothing', async (headers, message) => {
    const before = (await world.ada('GET', `/v1/installations/${world.space}`)).body.configuration;
    const answer = await configure({ headers, url: 'http://127.0.0.1:9/elsewhere' });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_configuration');
    expect(answer.body.error.message).toMatch(/^not saved: `headers` \(one "Name: value" per line\): /);
    expect(answer.body.error.message).toMatch(message);
    expect((await world.ada('GET', `/v1/installations/${world.space}`)).body.configuration).toEqual(before);
  });

  it('refuses bad headers asked for through the deliveries API with 400 invalid_headers, recording nothing', async () => {
    const ask = client(world.platform.url, world.spaceToken);
    const url = receiver.script('/api', [200]);
    for (const [headers, message] of [
      [{ 'webhook-signature': 'v1,forged' }, /"webhook-signature" is one of the platform's own headers/],
      [{ 'X-Split': 'a\r\nX-Injected: 1' }, /the value of "X-Split" must be printable ASCII without line breaks/],
      [{ 'X-Number': 7 }, /the value of "X-Number" must be a string/],
    ] as const) {
      const answer = await ask('POST', `/v1/installations/${world.space}/deliveries`, {
        url,
        eventId: 'evt_refused',
        type: 'test',
        payload: { eventId: 'evt_refused' },
        headers,
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_headers');
      expect(answer.body.error.message).toMatch(message);
    }
    expect((await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=evt_refused`)).body).toEqual(
      [],
    );
    const accepted = await ask('POST', `/v1/installations/${world.space}/deliveries`, {
      url,
      eventId: 'evt_accepted',
      type: 'test',
      payload: { eventId: 'evt_accepted' },
      headers: { 'X-Api-Key': 'k1' },
    });
    expect(accepted.status).toBe(202);
    const [request] = await until('the delivery', () => (receiver.at('/api').length ? receiver.at('/api') : undefined));
    expect(request?.headers['x-api-key']).toBe('k1');
    expect(receiver.at('/api')).toHaveLength(1);
  }, 30_000);
});
