/**
 * Operator alerts (decision 034) on the real server, on SQLite and PostgreSQL, with real receivers
 * on 127.0.0.1: each of the four alerts arrives signed (verifiable with `@portico/webhooks`) with
 * its fields; an alert never goes to the endpoint it is about; an alert the receiver refuses first
 * is retried by the delivery engine; no alert is made without PORTICO_ALERT_URL.
 */
import { verify } from '@portico/webhooks';
import { describe, expect, it } from 'vitest';
import { ConfigError, configFromEnv } from '../config.js';
import { startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { type Received, ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';
import { ALERTS_INSTALLATION_ID, type OperatorAlert } from './operator-alerts.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A hand-written workerd integration in the envelope protocol; `onEvent` runs on each event it gets. */
const worker = (onEvent: string) => `export default {
  async fetch(request) {
    if (request.method === 'GET') {
      return Response.json({ runtime: 'portico', versions: ['v1'], fetch: false, components: [],
        events: ['installation_setup', 'space_installation_setup', 'space_content_updated'] });
    }
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    ${onEvent}
    return new Response(null, { status: 204 });
  },
};`;

const alertsAt = (receiver: ScriptedReceiver) =>
  receiver.at('/alerts').map((request) => ({ request, alert: JSON.parse(request.body) as OperatorAlert }));

/** The first alert received that `matches`, once it has come. */
const alertWhere = (
  receiver: ScriptedReceiver,
  what: string,
  matches: (alert: OperatorAlert) => boolean,
  ms = 20_000,
) => until(what, () => alertsAt(receiver).find(({ alert }) => matches(alert)), ms);

async function signedWith(secret: string, request: Received): Promise<boolean> {
  return verify(secret, request.body, String(request.headers['x-platform-signature']));
}

describe('alert settings', () => {
  it('refuses an alert URL that is not http(s), and http without PORTICO_ALLOW_PRIVATE_NETWORK, at start', async () => {
    expect(() => configFromEnv({ PORTICO_ALERT_URL: 'ftp://ops.example.com/alerts' })).toThrow(
      /^PORTICO_ALERT_URL must be an http\(s\) URL such as https:\/\/.*got "ftp:\/\/ops.example.com\/alerts"$/,
    );
    expect(() => configFromEnv({ PORTICO_ALERT_URL: 'ops.example.com' })).toThrow(ConfigError);
    expect(
      configFromEnv({ PORTICO_ALERT_URL: 'http://127.0.0.1:9/alerts', PORTICO_ALLOW_PRIVATE_NETWORK: '1' }).alertUrl,
    ).toBe('http://127.0.0.1:9/alerts');
    expect(configFromEnv({ PORTICO_ALERT_URL: '' }).alertUrl).toBeUndefined();
    const [sqlite] = backends;
    const fresh = await (sqlite as (typeof backends)[number]).fresh();
    try {
      await expect(
        startPlatform({ ...fresh.config, allowPrivateNetwork: false, alertUrl: 'http://127.0.0.1:9/alerts' }),
      ).rejects.toThrow(
        /^PORTICO_ALERT_URL must use https: deliveries use http only with PORTICO_ALLOW_PRIVATE_NETWORK=1/,
      );
    } finally {
      await fresh.cleanup();
    }
  });
});

describe.each(backends)('operator alerts on $name', (backend) => {
  describe('deliveries that fail for good, a circuit breaker that opens, an alert receiver that fails first', () => {
    const receiver = new ScriptedReceiver();
    const alerts = new ScriptedReceiver();
    const world = webhookWorldFor(
      backend,
      { dispatchTimeoutMs: 1000, settings: () => ({ alertUrl: `${alerts.url}/alerts` }) },
      [receiver, alerts],
    );
    const secret = async () =>
      (await world.admin('GET', `/v1/installations/${ALERTS_INSTALLATION_ID}/signing-secret`)).body.secret as string;
    const requestDelivery = (path: string, answers: (number | 'reset')[], eventId: string) => {
      const url = path.startsWith('http') ? path : receiver.script(path, answers);
      return client(world.platform.url, world.spaceToken)('POST', `/v1/installations/${world.space}/deliveries`, {
        url,
        eventId,
        type: 'space_content_updated',
        payload: { eventId, type: 'space_content_updated' },
      });
    };

    it('delivery.failed: retries exhausted, signed with the secret the operator reads, with its fields; not sent to the failing endpoint', async () => {
      const requested = await requestDelivery('/gone', [500], 'evt-gone');
      expect(requested.status).toBe(202);
      const { request, alert } = await alertWhere(
        alerts,
        'the delivery.failed alert',
        (a) => a.event?.id === 'evt-gone',
      );
      const key = await secret();
      expect(key).toMatch(/^whsec_/);
      expect(await signedWith(key, request)).toBe(true);
      expect(await signedWith(`${key}x`, request)).toBe(false);
      expect(request.headers).toMatchObject({
        'content-type': 'application/json',
        'x-platform-event-type': 'delivery.failed',
        'x-platform-event-id': `delivery.failed:${requested.body.id}`,
      });
      const [endpoint] = (await world.ada('GET', `/v1/installations/${world.space}/endpoints`)).body;
      expect(alert).toEqual({
        eventId: `delivery.failed:${requested.body.id}`,
        type: 'delivery.failed',
        occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        installation: {
          id: world.space,
          integration: 'webhook',
          organizationId: 'acme',
          target: { type: 'space', id: 'docs' },
        },
        endpoint: { id: endpoint.id, url: `${receiver.url}/gone`, disabledReason: null },
        event: { id: 'evt-gone', type: 'space_content_updated' },
        delivery: { id: requested.body.id, attempts: 4 },
        circuit: null,
        lastError: 'gave up after 4 attempts: the receiver answered 500',
      });
      // The failing endpoint got its four attempts and nothing else.
      expect(receiver.at('/gone').map((r) => JSON.parse(r.body).eventId)).toEqual(Array(4).fill('evt-gone'));
      // The alert is a delivery of the engine, in the alerts installation's log.
      const logged = (await world.admin('GET', `/v1/installations/${ALERTS_INSTALLATION_ID}/deliveries`)).body;
      expect(logged).toEqual([
        expect.objectContaining({ eventId: alert.eventId, type: 'delivery.failed', url: `${alerts.url}/alerts` }),
      ]);
    }, 30_000);

    it('an alert the receiver refuses first is retried, signed afresh, until it is delivered', async () => {
      alerts.script('/alerts', [503, 200]);
      const requested = await requestDelivery('/bad', [400], 'evt-bad');
      const tries = await until('the alert twice', () => {
        const found = alertsAt(alerts).filter(({ alert }) => alert.event?.id === 'evt-bad');
        return found.length >= 2 ? found : undefined;
      });
      const key = await secret();
      const [first, second] = tries.map(({ request }) => request) as [Received, Received];
      expect(first.headers['x-platform-delivery-attempt']).toBe('1');
      expect(second.headers['x-platform-delivery-attempt']).toBe('2');
      expect(second.headers['x-platform-delivery-id']).toBe(first.headers['x-platform-delivery-id']);
      expect(second.body).toBe(first.body);
      expect(second.at - first.at).toBeGreaterThanOrEqual(950);
      expect(await signedWith(key, first)).toBe(true);
      expect(await signedWith(key, second)).toBe(true);
      expect(tries[0]?.alert).toMatchObject({
        type: 'delivery.failed',
        delivery: { id: requested.body.id, attempts: 1 },
        lastError: 'the receiver answered 400',
      });
      const delivered = await until('the alert delivered', async () => {
        const { body } = await world.admin(
          'GET',
          `/v1/installations/${ALERTS_INSTALLATION_ID}/deliveries?eventId=${encodeURIComponent(tries[0]?.alert.eventId ?? '')}`,
        );
        return body[0]?.status === 'delivered' ? body[0] : undefined;
      });
      expect(delivered.attempts.map((a: { status: number }) => a.status).sort()).toEqual([200, 503]);
      expect(receiver.at('/bad')).toHaveLength(1);
    }, 30_000);

    it('no alert about an endpoint whose URL is the alert URL itself, and none about a failed alert', async () => {
      // The space's delivery to the alert URL fails (400); so does the alert about the next failure.
      alerts.script('/alerts', [400, 400, 200]);
      const self = await requestDelivery(`${alerts.url}/alerts`, [], 'evt-self');
      await until('the delivery to the alert URL to fail', async () => {
        const { body } = await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=evt-self`);
        return body[0]?.status === 'failed' ? true : undefined;
      });
      const control = await requestDelivery('/bad-too', [400], 'evt-control');
      // The alert about evt-control is refused with 400 (not retried): it ends failed, with no alert of its own.
      await alertWhere(alerts, 'the alert about evt-control', (a) => a.event?.id === 'evt-control');
      await until('the failed alert to end', async () => {
        const { body } = await world.admin(
          'GET',
          `/v1/installations/${ALERTS_INSTALLATION_ID}/deliveries?eventId=delivery.failed:${control.body.id}`,
        );
        return body[0]?.status === 'failed' ? true : undefined;
      });
      // A later failure's alert comes through: nothing about evt-self or the failed alert came before it.
      alerts.script('/alerts', [200]);
      await requestDelivery('/bad-three', [400], 'evt-later');
      await alertWhere(alerts, 'the alert about evt-later', (a) => a.event?.id === 'evt-later');
      await sleep(200);
      const about = alertsAt(alerts).map(({ alert }) => alert.event?.id ?? alert.type);
      expect(about).not.toContain('evt-self');
      expect(about).not.toContain(`delivery.failed:${control.body.id}`);
      expect(about.filter((id) => id === 'evt-control')).toHaveLength(1);
      expect(self.status).toBe(202);
      const logged = (await world.admin('GET', `/v1/installations/${ALERTS_INSTALLATION_ID}/deliveries?limit=200`))
        .body as { eventId: string }[];
      expect(logged.map((d) => d.eventId)).not.toContain(`delivery.failed:${self.body.id}`);
    }, 30_000);

    it('integration.circuit_opened: a worker that keeps timing out, with its integration, installation, event and error', async () => {
      const manifest = `name: spinner\ntitle: spinner\ndescription: test\norganization: acme\nvisibility: private\nscopes: [space:content:read]\n`;
      const published = await world.ada('POST', '/v1/integrations', {
        manifest,
        script: worker("if (event.type === 'space_content_updated') for (;;) {}"),
      });
      expect(published.status, JSON.stringify(published.body)).toBe(201);
      const org = (await world.ada('POST', '/v1/orgs/acme/installations', { integration: 'spinner' })).body.id;
      const installation = (await world.ada('POST', `/v1/installations/${org}/spaces/docs`)).body.id as string;
      await until('the setup event dispatched', async () => {
        const { body } = await world.ada('GET', `/v1/installations/${installation}/dispatches`);
        return body.length > 0 ? true : undefined;
      });
      for (const eventId of ['spin-1', 'spin-2', 'spin-3']) {
        const sent = await world.admin('POST', '/v1/events', {
          type: 'space_content_updated',
          spaceId: 'docs',
          revisionId: 'r',
          eventId,
        });
        expect(sent.status).toBe(202);
      }
      const { request, alert } = await alertWhere(
        alerts,
        'the circuit_opened alert',
        (a) => a.type === 'integration.circuit_opened',
        40_000,
      );
      expect(await signedWith(await secret(), request)).toBe(true);
      expect(alert).toEqual({
        eventId: expect.stringMatching(/^integration\.circuit_opened:spinner:\d+$/),
        type: 'integration.circuit_opened',
        occurredAt: expect.any(String),
        installation: {
          id: installation,
          integration: 'spinner',
          organizationId: 'acme',
          target: { type: 'space', id: 'docs' },
        },
        endpoint: null,
        event: { id: expect.stringMatching(/^spin-[123]$/), type: 'space_content_updated' },
        delivery: null,
        circuit: { integration: 'spinner', failures: 3, retryAt: expect.stringMatching(/^\d{4}-/) },
        lastError: expect.stringMatching(/did not answer within 1 s/),
      });
    }, 60_000);
  });

  describe('an endpoint that fails for the disable period, then is enabled', () => {
    const receiver = new ScriptedReceiver();
    const alerts = new ScriptedReceiver();
    const world = webhookWorldFor(
      backend,
      { tuning: { endpointDisableAfterMs: 1500 }, settings: () => ({ alertUrl: `${alerts.url}/alerts` }) },
      [receiver, alerts],
    );

    it('endpoint.disabled, then endpoint.recovered, signed, each once, none sent to the endpoint', async () => {
      const url = receiver.script('/broken', [500]);
      const deliver = client(world.platform.url, world.spaceToken);
      const requested = await deliver('POST', `/v1/installations/${world.space}/deliveries`, {
        url,
        eventId: 'dis-1',
        type: 'space_content_updated',
        payload: { eventId: 'dis-1' },
      });
      const { request, alert } = await alertWhere(
        alerts,
        'the endpoint.disabled alert',
        (a) => a.type === 'endpoint.disabled',
      );
      const key = (await world.admin('GET', `/v1/installations/${ALERTS_INSTALLATION_ID}/signing-secret`)).body.secret;
      expect(await signedWith(key, request)).toBe(true);
      const [endpoint] = (await world.ada('GET', `/v1/installations/${world.space}/endpoints`)).body;
      expect(endpoint.state).toBe('disabled');
      expect(alert).toEqual({
        eventId: expect.stringMatching(new RegExp(`^endpoint\\.disabled:${endpoint.id}:\\d+$`)),
        type: 'endpoint.disabled',
        occurredAt: expect.any(String),
        installation: {
          id: world.space,
          integration: 'webhook',
          organizationId: 'acme',
          target: { type: 'space', id: 'docs' },
        },
        endpoint: { id: endpoint.id, url, disabledReason: endpoint.disabledReason },
        event: { id: 'dis-1', type: 'space_content_updated' },
        delivery: { id: requested.body.id, attempts: expect.any(Number) },
        circuit: null,
        lastError: 'the receiver answered 500',
      });
      expect(alert.endpoint?.disabledReason).toMatch(/^disabled: every attempt to .*\/broken failed since/);

      // The delivery whose attempt disabled it failed too, and says so in an alert of its own.
      const failed = await alertWhere(alerts, 'the delivery.failed alert', (a) => a.type === 'delivery.failed');
      expect(failed.alert).toMatchObject({ delivery: { id: requested.body.id }, endpoint: { id: endpoint.id } });

      // Asked for while it is disabled: failed at once, counted and alerted like any failed delivery.
      const refused = await deliver('POST', `/v1/installations/${world.space}/deliveries`, {
        url,
        eventId: 'dis-2',
        type: 'space_content_updated',
        payload: { eventId: 'dis-2' },
      });
      expect(refused.body.status).toBe('failed');
      const refusedAlert = await alertWhere(
        alerts,
        'the delivery.failed alert of the refused delivery',
        (a) => a.type === 'delivery.failed' && a.delivery?.id === refused.body.id,
      );
      expect(refusedAlert.alert).toMatchObject({
        event: { id: 'dis-2' },
        lastError: expect.stringMatching(/^disabled: every attempt to /),
      });

      receiver.script('/broken', [200]);
      const enabled = await world.ada('POST', `/v1/installations/${world.space}/endpoints/${endpoint.id}/enable`);
      expect(enabled.status).toBe(200);
      const recovered = await alertWhere(
        alerts,
        'the endpoint.recovered alert',
        (a) => a.type === 'endpoint.recovered',
      );
      expect(await signedWith(key, recovered.request)).toBe(true);
      expect(recovered.alert).toMatchObject({
        type: 'endpoint.recovered',
        installation: { id: world.space, integration: 'webhook' },
        endpoint: { id: endpoint.id, url, disabledReason: endpoint.disabledReason },
        event: null,
        delivery: null,
        lastError: 'the receiver answered 500',
      });
      // Enabling an endpoint that is not disabled recovers nothing.
      await world.ada('POST', `/v1/installations/${world.space}/endpoints/${endpoint.id}/enable`);
      await sleep(300);
      expect(alertsAt(alerts).map(({ alert: a }) => a.type)).toEqual([
        'endpoint.disabled',
        'delivery.failed',
        'delivery.failed',
        'endpoint.recovered',
      ]);
      expect(receiver.at('/broken').every((r) => JSON.parse(r.body).eventId === 'dis-1')).toBe(true);
    }, 30_000);
  });

  describe('without PORTICO_ALERT_URL', () => {
    const receiver = new ScriptedReceiver();
    const world = webhookWorldFor(backend, {}, [receiver]);

    it('makes no alert and no alerts installation when a delivery fails for good', async () => {
      const url = receiver.script('/bad', [400]);
      await client(world.platform.url, world.spaceToken)('POST', `/v1/installations/${world.space}/deliveries`, {
        url,
        eventId: 'quiet-1',
        type: 'space_content_updated',
        payload: { eventId: 'quiet-1' },
      });
      await until('the delivery to fail', async () => {
        const { body } = await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=quiet-1`);
        return body[0]?.status === 'failed' ? true : undefined;
      });
      await sleep(300);
      const rows = await world.platform.ctx.db
        .selectFrom('deliveries')
        .select(['installation_id', 'event_id'])
        .execute();
      expect(rows).toEqual([{ installation_id: world.space, event_id: 'quiet-1' }]);
      expect((await world.admin('GET', `/v1/installations/${ALERTS_INSTALLATION_ID}`)).status).toBe(404);
    });
  });
});
