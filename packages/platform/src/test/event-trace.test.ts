/**
 * GET /v1/events/{eventId} and GET /v1/deliveries/{id} on the real server, on SQLite and
 * PostgreSQL: an event is followed from routing to the webhook delivery it was fanned out to (no
 * dispatch), with the access rules of the other routes.
 */
import { describe, expect, it } from 'vitest';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';

describe.each(backends)('tracing an event on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);

  it('answers who the event is owed to, how each dispatch ended, its dispatches and its deliveries', async () => {
    const url = receiver.script('/traced', [500, 200]);
    const configured = await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, {
      url,
      space_content_updated: true,
    });
    expect(configured.body.status).toBe('active');
    const sent = await world.admin('POST', '/v1/events', {
      type: 'space_content_updated',
      spaceId: 'docs',
      revisionId: 'r1',
    });
    expect(sent.status).toBe(202);
    const eventId = sent.body.eventId as string;
    const trace = await until('the delivery to end', async () => {
      const { body } = await world.admin('GET', `/v1/events/${eventId}`);
      return body.deliveries?.[0]?.status === 'delivered' ? body : undefined;
    });
    expect(trace).toMatchObject({
      eventId,
      type: 'space_content_updated',
      routedAt: expect.any(String),
      // Fanned out to the webhook subscription when accepted: no outbox row, no dispatch.
      installations: [],
      dispatches: [],
      deliveries: [
        {
          installationId: world.space,
          eventId,
          url,
          status: 'delivered',
          attempts: [
            { number: 1, status: 500 },
            { number: 2, status: 200 },
          ],
        },
      ],
    });

    const delivery = await world.ada('GET', `/v1/deliveries/${trace.deliveries[0].id}`);
    expect(delivery).toMatchObject({ status: 200, body: { ...trace.deliveries[0] } });
  });

  it('answers 404 for an unknown event or delivery, and events only to the operator', async () => {
    expect((await world.admin('GET', '/v1/events/evt_nope')).body.error).toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/the event evt_nope/),
    });
    expect((await world.ada('GET', '/v1/deliveries/dlv_nope')).status).toBe(404);
    const sent = await world.admin('POST', '/v1/events', { type: 'site_view', ...siteView() });
    const refused = await world.ada('GET', `/v1/events/${sent.body.eventId}`);
    expect(refused.status).toBe(403);
  });

  it('shows a delivery only to who may see its installation', async () => {
    const url = receiver.script('/private', [200]);
    await world.ada('PATCH', `/v1/installations/${world.site}/configuration`, { url, site_view: true });
    const sent = await world.admin('POST', '/v1/events', { type: 'site_view', ...siteView() });
    const trace = await until('the delivery', async () => {
      const { body } = await world.admin('GET', `/v1/events/${sent.body.eventId}`);
      return body.deliveries?.length ? body : undefined;
    });
    const stranger = (await world.admin('POST', '/v1/users', { id: 'eve', name: 'Eve' })).body.token as string;
    const refused = await client(world.platform.url, stranger)('GET', `/v1/deliveries/${trace.deliveries[0].id}`);
    expect(refused).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
  });
});

function siteView() {
  return {
    siteId: 'site',
    visitor: { anonymousId: 'a', userAgent: 'ua', ip: '203.0.113.7', cookies: {} },
    url: 'https://docs.example.com/',
    referrer: '',
  };
}
