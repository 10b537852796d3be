/**
 * Organization alert URLs (decision 036) on the real server, on SQLite and PostgreSQL, with real
 * receivers on 127.0.0.1: an organization's admins set, read and clear its alert URL (members read
 * it, and may not change it; a bad URL changes nothing); alerts about its installations arrive
 * there signed with its own secret, and still at the operator's PORTICO_ALERT_URL; another
 * organization gets none of them; an alert about the alert URL itself, or about a failed alert,
 * is not sent.
 */
import { verify } from '@portico/webhooks';
import { describe, expect, it } from 'vitest';
import { startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { type Received, ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';
import { ALERTS_INSTALLATION_ID, type OperatorAlert } from './operator-alerts.js';
import { alertUrlProblem } from './organization-alert-url.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const alertsAt = (receiver: ScriptedReceiver, path: string) =>
  receiver.at(path).map((request) => ({ request, alert: JSON.parse(request.body) as OperatorAlert }));

const alertWhere = (receiver: ScriptedReceiver, path: string, what: string, matches: (a: OperatorAlert) => boolean) =>
  until(what, () => alertsAt(receiver, path).find(({ alert }) => matches(alert)));

const signedWith = (secret: string, request: Received) =>
  verify(secret, request.body, String(request.headers['x-platform-signature']));

describe('alert URL checks', () => {
  it('refuses what the delivery engine would refuse, naming the field, and private addresses unless allowed', () => {
    expect(alertUrlProblem('ftp://ops.example.com/alerts', true)).toBe(
      '`url` must be an absolute https or http URL, such as https://ops.example.com/portico-alerts: ftp: is not http or https',
    );
    expect(alertUrlProblem('ops.example.com', true)).toMatch(/^`url` must be .*"ops.example.com" is not a URL$/);
    expect(alertUrlProblem('http://ops.example.com/alerts', false)).toMatch(
      /^`url` must be an absolute https URL.*https/,
    );
    expect(alertUrlProblem('https://127.0.0.1/alerts', false)).toMatch(/127\.0\.0\.1 is a loopback, private/);
    expect(alertUrlProblem('https://localhost/alerts', false)).toMatch(/localhost is a loopback address/);
    expect(alertUrlProblem('https://127.0.0.1/alerts', true)).toBeUndefined();
    expect(alertUrlProblem('https://ops.example.com/alerts', false)).toBeUndefined();
  });

  it('a server without PORTICO_ALLOW_PRIVATE_NETWORK refuses http and private addresses through the API, storing nothing', async () => {
    const fresh = await (backends[0] as (typeof backends)[number]).fresh();
    const platform = await startPlatform({ ...fresh.config, allowPrivateNetwork: false });
    try {
      const admin = client(platform.url, platform.adminToken);
      expect((await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' })).status).toBe(201);
      for (const [url, why] of [
        ['http://ops.example.com/alerts', /^`url` must be an absolute https URL, .*: webhook URLs must use https/],
        ['https://10.0.0.8/alerts', /10\.0\.0\.8 is a loopback, private, link-local or reserved address$/],
        ['https://localhost/alerts', /localhost is a loopback address$/],
      ] as const) {
        const refused = await admin('PUT', '/v1/orgs/acme/alert-url', { url });
        expect(refused.status, url).toBe(400);
        expect(refused.body.error.message).toMatch(why);
      }
      expect((await admin('GET', '/v1/orgs/acme/alert-url')).body.url).toBeNull();
      const set = await admin('PUT', '/v1/orgs/acme/alert-url', { url: ' https://ops.example.com/alerts ' });
      expect(set.body).toMatchObject({ url: 'https://ops.example.com/alerts', updatedBy: 'admin' });
    } finally {
      await platform.close();
      await fresh.cleanup();
    }
  });
});

describe.each(backends)('organization alert URLs on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  /** The operator's (PORTICO_ALERT_URL at /operator), acme's (/acme) and globex's (/globex) receivers. */
  const alerts = new ScriptedReceiver();
  const world = webhookWorldFor(backend, { settings: () => ({ alertUrl: `${alerts.url}/operator` }) }, [
    receiver,
    alerts,
  ]);
  const as = (token: string) => client(world.platform.url, token);
  const users: Record<string, ReturnType<typeof client>> = {};
  const userIn = async (id: string, org: string, role: 'admin' | 'member') => {
    if (users[id] === undefined) {
      const made = await world.admin('POST', '/v1/users', { id, name: id });
      users[id] = as(made.body.token);
    }
    await world.admin('PUT', `/v1/orgs/${org}/members/${id}`, { role });
    return users[id];
  };
  const requestDelivery = (url: string, eventId: string) =>
    as(world.spaceToken)('POST', `/v1/installations/${world.space}/deliveries`, {
      url,
      eventId,
      type: 'space_content_updated',
      payload: { eventId, type: 'space_content_updated' },
    });
  const failed = (eventId: string) =>
    until(`the delivery of ${eventId} to fail`, async () => {
      const { body } = await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=${eventId}`);
      return body[0]?.status === 'failed' ? body[0] : undefined;
    });

  it('admins set, read and clear it; members read it only; a bad URL is a 400 that changes nothing', async () => {
    const cy = await userIn('cy', 'acme', 'member');
    expect((await cy('GET', '/v1/orgs/acme/alert-url')).body).toEqual({
      url: null,
      installationId: null,
      updatedAt: null,
      updatedBy: null,
    });
    const byMember = await cy('PUT', '/v1/orgs/acme/alert-url', { url: `${alerts.url}/acme` });
    expect(byMember.status).toBe(403);
    expect(byMember.body.error).toEqual({
      code: 'forbidden',
      message:
        'setting the alert URL needs the admin role in the organization acme, and you are a member: ask one of its admins (or the operator)',
    });
    expect((await cy('DELETE', '/v1/orgs/acme/alert-url')).status).toBe(403);

    for (const [body, message] of [
      [
        { url: 'ftp://ops.example.com/alerts' },
        /^`url` must be an absolute https or http URL.*ftp: is not http or https$/,
      ],
      [{ url: 'not a url' }, /^`url` must be .*"not a url" is not a URL$/],
      [{}, /^invalid request: body\.url is required$/],
      [{ url: 42 }, /^invalid request: body\.url must be string$/],
    ] as const) {
      const refused = await world.ada('PUT', '/v1/orgs/acme/alert-url', body);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.error.message).toMatch(message);
    }
    const bad = await world.ada('PUT', '/v1/orgs/acme/alert-url', { url: 'ftp://ops.example.com/alerts' });
    expect(bad.body.error).toMatchObject({
      code: 'invalid_alert_url',
      errors: [{ path: 'url', message: expect.stringMatching(/^`url` must be/) }],
    });
    // Nothing was stored, and no alerts installation was made.
    expect((await world.ada('GET', '/v1/orgs/acme/alert-url')).body.url).toBeNull();
    expect((await world.admin('GET', `/v1/installations/${ALERTS_INSTALLATION_ID}-acme`)).status).toBe(404);
    expect((await world.ada('GET', '/v1/orgs/acme/alert-url/signing-secret')).status).toBe(404);

    const set = await world.ada('PUT', '/v1/orgs/acme/alert-url', { url: `${alerts.url}/acme` });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toEqual({
      url: `${alerts.url}/acme`,
      installationId: `${ALERTS_INSTALLATION_ID}-acme`,
      updatedAt: expect.stringMatching(/^\d{4}-/),
      updatedBy: 'ada',
    });
    expect((await cy('GET', '/v1/orgs/acme/alert-url')).body.url).toBe(`${alerts.url}/acme`);
    // The secret is the admins' to read and rotate.
    expect((await cy('GET', '/v1/orgs/acme/alert-url/signing-secret')).status).toBe(403);
    const secret = await world.ada('GET', '/v1/orgs/acme/alert-url/signing-secret');
    expect(secret.body).toEqual({ secret: expect.stringMatching(/^whsec_/), previous: [] });
    const operatorSecret = (await world.admin('GET', `/v1/installations/${ALERTS_INSTALLATION_ID}/signing-secret`)).body
      .secret;
    expect(secret.body.secret).not.toBe(operatorSecret);

    // A bad URL later leaves the one set.
    expect((await world.ada('PUT', '/v1/orgs/acme/alert-url', { url: 'mailto:ops@example.com' })).status).toBe(400);
    expect((await world.ada('GET', '/v1/orgs/acme/alert-url')).body.url).toBe(`${alerts.url}/acme`);

    // Clearing keeps the secret for the next URL.
    const cleared = await world.ada('DELETE', '/v1/orgs/acme/alert-url');
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ url: null, installationId: `${ALERTS_INSTALLATION_ID}-acme` });
    expect((await world.ada('PUT', '/v1/orgs/acme/alert-url', { url: `${alerts.url}/acme` })).status).toBe(200);
    expect((await world.ada('GET', '/v1/orgs/acme/alert-url/signing-secret')).body.secret).toBe(secret.body.secret);

    // Another organization's admin reaches nothing of acme's; the operator reaches everything.
    await world.admin('POST', '/v1/orgs', { id: 'globex', title: 'Globex' });
    const bob = await userIn('bob', 'globex', 'admin');
    expect((await bob('GET', '/v1/orgs/acme/alert-url')).status).toBe(403);
    expect((await bob('GET', '/v1/orgs/acme/alert-url/signing-secret')).status).toBe(403);
    expect((await bob('PUT', '/v1/orgs/globex/alert-url', { url: `${alerts.url}/globex` })).status).toBe(200);
    expect((await world.admin('GET', '/v1/orgs/acme/alert-url')).body.url).toBe(`${alerts.url}/acme`);
    expect((await world.admin('PUT', '/v1/orgs/nowhere/alert-url', { url: `${alerts.url}/x` })).status).toBe(404);
  });

  it("delivery.failed about acme's installation: to acme's URL signed with its secret, and to the operator's; globex gets nothing", async () => {
    const url = receiver.script('/gone', [500]);
    const requested = await requestDelivery(url, 'evt-gone');
    expect(requested.status).toBe(202);
    const { request, alert } = await alertWhere(alerts, '/acme', "acme's delivery.failed alert", (a) => {
      return a.event?.id === 'evt-gone';
    });
    const secret = (await world.ada('GET', '/v1/orgs/acme/alert-url/signing-secret')).body.secret as string;
    expect(await signedWith(secret, request)).toBe(true);
    const operatorSecret = (await world.admin('GET', `/v1/installations/${ALERTS_INSTALLATION_ID}/signing-secret`)).body
      .secret as string;
    expect(await signedWith(operatorSecret, request)).toBe(false);
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
      endpoint: { id: endpoint.id, url, disabledReason: null },
      event: { id: 'evt-gone', type: 'space_content_updated' },
      delivery: { id: requested.body.id, attempts: 4 },
      circuit: null,
      lastError: 'gave up after 4 attempts: the receiver answered 500',
    });
    // The operator got the same alert, signed with the operator's secret.
    const operator = await alertWhere(alerts, '/operator', "the operator's alert", (a) => a.event?.id === 'evt-gone');
    expect(operator.request.body).toBe(request.body);
    expect(await signedWith(operatorSecret, operator.request)).toBe(true);
    // It is a delivery of acme's alerts installation, in its log.
    const logged = (await world.admin('GET', `/v1/installations/${ALERTS_INSTALLATION_ID}-acme/deliveries`)).body;
    expect(logged).toEqual([
      expect.objectContaining({ eventId: alert.eventId, status: 'delivered', url: `${alerts.url}/acme` }),
    ]);
    await sleep(200);
    expect(alerts.at('/globex')).toEqual([]);
    expect(receiver.at('/gone')).toHaveLength(4);
  }, 30_000);

  it('no alert to the URL a failing delivery went to, none about a failed alert; none to acme once cleared', async () => {
    // A delivery of acme's space to acme's alert URL fails: its alert goes to the operator only.
    alerts.script('/acme', [400]);
    const self = await requestDelivery(`${alerts.url}/acme`, 'evt-self');
    await failed('evt-self');
    await alertWhere(alerts, '/operator', 'the operator alert about evt-self', (a) => a.event?.id === 'evt-self');
    // The next alert to acme is refused (400): it ends failed, and makes no alert of its own.
    const control = await requestDelivery(receiver.script('/bad', [400]), 'evt-control');
    await alertWhere(alerts, '/acme', "acme's alert about evt-control", (a) => a.event?.id === 'evt-control');
    await until("acme's alert to fail", async () => {
      const { body } = await world.admin(
        'GET',
        `/v1/installations/${ALERTS_INSTALLATION_ID}-acme/deliveries?eventId=delivery.failed:${control.body.id}`,
      );
      return body[0]?.status === 'failed' ? true : undefined;
    });
    alerts.script('/acme', [200]);
    // Cleared: the next failure's alert goes to the operator only.
    expect((await world.ada('DELETE', '/v1/orgs/acme/alert-url')).status).toBe(200);
    await requestDelivery(receiver.script('/bad-too', [400]), 'evt-later');
    await alertWhere(alerts, '/operator', 'the operator alert about evt-later', (a) => a.event?.id === 'evt-later');
    await sleep(300);
    const toAcme = alertsAt(alerts, '/acme').map(({ alert }) => alert.event?.id);
    expect(toAcme).not.toContain('evt-self');
    expect(toAcme).not.toContain('evt-later');
    expect(toAcme.filter((id) => id === 'evt-control')).toHaveLength(1);
    const toOperator = alertsAt(alerts, '/operator').map(({ alert }) => alert);
    expect(toOperator.every((a) => !a.installation?.id.startsWith(ALERTS_INSTALLATION_ID))).toBe(true);
    expect(toOperator.map((a) => a.event?.id)).toContain('evt-control');
    expect(alerts.at('/globex')).toEqual([]);
    expect(self.status).toBe(202);
  }, 30_000);
});

describe.each(backends)('an organization alert URL without PORTICO_ALERT_URL on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const alerts = new ScriptedReceiver();
  const world = webhookWorldFor(backend, { tuning: { endpointDisableAfterMs: 1500 } }, [receiver, alerts]);

  it("gets the alerts about the organization's installations; the operator has no alerts installation", async () => {
    expect((await world.ada('PUT', '/v1/orgs/acme/alert-url', { url: `${alerts.url}/acme` })).status).toBe(200);
    const requested = await client(world.platform.url, world.spaceToken)(
      'POST',
      `/v1/installations/${world.space}/deliveries`,
      { url: receiver.script('/bad', [400]), eventId: 'solo-1', type: 'space_content_updated', payload: {} },
    );
    const { request, alert } = await alertWhere(alerts, '/acme', 'the alert', (a) => a.event?.id === 'solo-1');
    expect(alert).toMatchObject({ type: 'delivery.failed', delivery: { id: requested.body.id, attempts: 1 } });
    const secret = (await world.ada('GET', '/v1/orgs/acme/alert-url/signing-secret')).body.secret as string;
    expect(await signedWith(secret, request)).toBe(true);
    expect((await world.admin('GET', `/v1/installations/${ALERTS_INSTALLATION_ID}`)).status).toBe(404);
  }, 30_000);

  it('endpoint.disabled, then endpoint.recovered once it is enabled, signed with its secret', async () => {
    expect((await world.ada('PUT', '/v1/orgs/acme/alert-url', { url: `${alerts.url}/acme` })).status).toBe(200);
    const url = receiver.script('/broken', [500]);
    await client(world.platform.url, world.spaceToken)('POST', `/v1/installations/${world.space}/deliveries`, {
      url,
      eventId: 'solo-2',
      type: 'space_content_updated',
      payload: {},
    });
    const disabled = await alertWhere(alerts, '/acme', 'endpoint.disabled', (a) => a.type === 'endpoint.disabled');
    const secret = (await world.ada('GET', '/v1/orgs/acme/alert-url/signing-secret')).body.secret as string;
    expect(await signedWith(secret, disabled.request)).toBe(true);
    expect(disabled.alert).toMatchObject({
      installation: { id: world.space, organizationId: 'acme' },
      endpoint: { url },
      event: { id: 'solo-2' },
    });
    receiver.script('/broken', [200]);
    const endpoint = disabled.alert.endpoint?.id as string;
    expect((await world.ada('POST', `/v1/installations/${world.space}/endpoints/${endpoint}/enable`)).status).toBe(200);
    const recovered = await alertWhere(alerts, '/acme', 'endpoint.recovered', (a) => a.type === 'endpoint.recovered');
    expect(await signedWith(secret, recovered.request)).toBe(true);
    expect(recovered.alert).toMatchObject({ installation: { id: world.space }, endpoint: { id: endpoint, url } });
    // The endpoint got only its own delivery's attempts, never an alert about itself.
    expect(receiver.at('/broken').every((r) => r.body === '{}')).toBe(true);
  }, 30_000);
});
