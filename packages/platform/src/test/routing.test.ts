/**
 * Routing and selection (DESIGN.md) on the real server, on SQLite and PostgreSQL: a space or site
 * event goes once per integration, to its installation in that place; the organization
 * installation receives only its own setup events; `space_selection` / `site_selection` decide
 * where an integration is installed, also into places created later; and a space dispatch's
 * environment carries the organization installation.
 */
import { createIntegration, type Environment, type RuntimeEvent } from '@portico/runtime';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningPlatform, startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { until } from '../test-support/webhook-world.js';

interface Seen {
  integration: string;
  event: RuntimeEvent;
  environment: Environment;
}

const seen: Seen[] = [];
function recorder(name: string) {
  const record = (event: RuntimeEvent, context: { environment: Environment }) =>
    void seen.push({ integration: name, event, environment: context.environment });
  return createIntegration({
    events: {
      installation_setup: record,
      space_installation_setup: record,
      site_installation_setup: record,
      space_content_updated: record,
      site_view: record,
    },
  });
}

/** Held at its space setup until `release`: what else it receives meanwhile shows whether anything overtook it. */
let release: () => void = () => {};
const gate = { held: new Promise<void>((r) => (release = r)) };
function gated(name: string) {
  const record = (event: RuntimeEvent, context: { environment: Environment }) =>
    void seen.push({ integration: name, event, environment: context.environment });
  return createIntegration({
    events: {
      installation_setup: record,
      async space_installation_setup(event, context) {
        await gate.held;
        record(event, context);
      },
      space_content_updated: record,
    },
  });
}

const manifest = (name: string) => `name: ${name}
title: ${name}
description: Records what it receives
organization: acme
visibility: private
scopes: [space:content:read, site:views:read]
configurations:
  account:
    properties:
      api_key:
        type: string
  site:
    properties:
      channel:
        type: string
`;

const visitor = { anonymousId: 'a', userAgent: 'test', ip: '192.0.2.1', cookies: {} };

describe.each(backends)('routing and selection on $name', (backend) => {
  let platform: RunningPlatform;
  let cleanup: () => Promise<void>;
  let admin: ReturnType<typeof client>;
  let ada: ReturnType<typeof client>;
  let bob: ReturnType<typeof client>;

  beforeAll(async () => {
    const fresh = await backend.fresh();
    cleanup = fresh.cleanup;
    platform = await startPlatform(fresh.config, {
      inProcess: new Map([
        ['alpha', recorder('alpha')],
        ['beta', recorder('beta')],
        ['gamma', gated('gamma')],
      ]),
    });
    admin = client(platform.url, platform.adminToken);
    await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    await admin('POST', '/v1/orgs', { id: 'globex', title: 'Globex' });
    for (const id of ['s1', 's2', 's3']) await admin('POST', '/v1/orgs/acme/spaces', { id, title: id });
    await admin('POST', '/v1/orgs/acme/sites', { id: 'w1', title: 'w1' });
    await admin('POST', '/v1/orgs/globex/spaces', { id: 'g1', title: 'g1' });
    const adaToken = (await admin('POST', '/v1/users', { id: 'ada', name: 'Ada' })).body.token;
    const bobToken = (await admin('POST', '/v1/users', { id: 'bob', name: 'Bob' })).body.token;
    await admin('PUT', '/v1/orgs/acme/members/ada', { role: 'admin' });
    await admin('PUT', '/v1/orgs/acme/members/bob', { role: 'member' });
    ada = client(platform.url, adaToken);
    bob = client(platform.url, bobToken);
    for (const name of ['alpha', 'beta', 'gamma']) {
      const published = await ada('POST', '/v1/integrations', { manifest: manifest(name), script: '// in-process' });
      expect(published.status, JSON.stringify(published.body)).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    release();
    await platform?.close();
    await cleanup?.();
  });
  beforeEach(() => {
    seen.length = 0;
  });

  /** Waits until every event is routed and nothing is owed, and answers what arrived. */
  async function settled(): Promise<Seen[]> {
    await until('every event routed and dispatched', async () => {
      const unrouted = await platform.ctx.db
        .selectFrom('events')
        .select('event_id')
        .where('routed_at', 'is', null)
        .executeTakeFirst();
      const owed = await platform.ctx.db
        .selectFrom('outbox')
        .select('id')
        .where('dispatched_at', 'is', null)
        .executeTakeFirst();
      return unrouted === undefined && owed === undefined ? true : undefined;
    });
    return [...seen];
  }

  const emit = async (event: Record<string, unknown>) => {
    const answer = await admin('POST', '/v1/events', event);
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  };

  it('new organization installations select no place; a space event reaches only the installation in that space, once', async () => {
    const org = await ada('POST', '/v1/orgs/acme/installations', { integration: 'alpha' });
    expect(org.body).toMatchObject({
      space_selection: { mode: 'selected', spaces: [] },
      site_selection: { mode: 'selected', sites: [] },
    });
    await ada('PATCH', `/v1/installations/${org.body.id}/configuration`, { api_key: 'key-1' });
    const space = (await ada('POST', `/v1/installations/${org.body.id}/spaces/s1`)).body.id as string;
    await settled();
    seen.length = 0;

    await emit({ type: 'space_content_updated', spaceId: 's1', revisionId: 'r1', eventId: 'route-1' });
    await emit({ type: 'space_content_updated', spaceId: 's2', revisionId: 'r1', eventId: 'route-2' });
    const got = await settled();
    expect(got.map((s) => [s.integration, s.event.eventId, s.environment.id])).toEqual([['alpha', 'route-1', space]]);
    const environment = got[0]?.environment;
    expect(environment).toMatchObject({
      target: 'space',
      space: 's1',
      id: space,
      parentInstallationId: org.body.id,
      installation: {
        id: org.body.id,
        status: 'active',
        configuration: { api_key: 'key-1' },
        space_selection: { mode: 'selected', spaces: ['s1'] },
        site_selection: { mode: 'selected', sites: [] },
        externalIds: [],
        urls: { publicEndpoint: `${platform.url}/v1/installations/${org.body.id}/public` },
      },
    });
    expect((await ada('GET', `/v1/installations/${org.body.id}`)).body.space_selection).toEqual({
      mode: 'selected',
      spaces: ['s1'],
    });
  });

  it('routes an event in the transaction that stores it, on both back ends', async () => {
    // A clock that moves a second at each reading: routing done afterwards (by the dispatcher's
    // loop) reads another time than the event's.
    const real = platform.ctx.now;
    let t = real();
    platform.ctx.now = () => (t += 1000);
    try {
      await emit({ type: 'space_content_updated', spaceId: 's1', revisionId: 'r1', eventId: 'route-inline' });
    } finally {
      platform.ctx.now = real;
    }
    await settled();
    const { db } = platform.ctx;
    const event = await db
      .selectFrom('events')
      .selectAll()
      .where('event_id', '=', 'route-inline')
      .executeTakeFirstOrThrow();
    const owed = await db.selectFrom('outbox').select('created_at').where('event_id', '=', 'route-inline').execute();
    expect(owed).toEqual([{ created_at: event.routed_at }]);
    expect(event.routed_at).toBe(event.received_at);
  });

  it('an event for an installation still owed its setup event waits for it: nothing overtakes a setup event', async () => {
    gate.held = new Promise<void>((r) => (release = r));
    const org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'gamma' })).body.id as string;
    await ada('POST', `/v1/installations/${org}/spaces/s3`);
    // Its space setup event is in flight (held); events for the space arrive meanwhile.
    await until('the setup dispatch under way', async () => {
      const owed = await platform.ctx.db
        .selectFrom('outbox')
        .select('claimed_until')
        .where('integration_name', '=', 'gamma')
        .where('event_id', 'is', null)
        .where('dispatched_at', 'is', null)
        .execute();
      return owed.some((row) => row.claimed_until !== null) ? true : undefined;
    });
    await emit({ type: 'space_content_updated', spaceId: 's3', revisionId: 'r1', eventId: 'after-setup-1' });
    await emit({ type: 'space_content_updated', spaceId: 's3', revisionId: 'r2', eventId: 'after-setup-2' });
    await new Promise((r) => setTimeout(r, 300));
    expect(seen.filter((s) => s.integration === 'gamma' && s.event.type === 'space_content_updated')).toEqual([]);
    release();
    const got = (await settled()).filter((s) => s.integration === 'gamma' && s.environment.target === 'space');
    expect(got.map((s) => s.event.type)).toEqual([
      'space_installation_setup',
      'space_content_updated',
      'space_content_updated',
    ]);
    await ada('DELETE', `/v1/installations/${org}`);
  });

  it('two integrations in one space: each gets the event once, at its space installation', async () => {
    const org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'beta' })).body.id as string;
    const beta = (await ada('POST', `/v1/installations/${org}/spaces/s1`)).body.id as string;
    await settled();
    seen.length = 0;
    await emit({ type: 'space_content_updated', spaceId: 's1', revisionId: 'r2', eventId: 'route-3' });
    const got = await settled();
    expect(got.map((s) => `${s.integration}→${s.environment.target}`).sort()).toEqual(['alpha→space', 'beta→space']);
    expect(got.find((s) => s.integration === 'beta')?.environment.id).toBe(beta);
  });

  it('mode all installs into every space, also one created later, with its setup event', async () => {
    const org = await orgInstallationOf('alpha');
    const patched = await ada('PATCH', `/v1/installations/${org}`, { space_selection: { mode: 'all' } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.space_selection).toEqual({ mode: 'all' });
    const setups = await settled();
    expect(
      setups
        .filter((s) => s.event.type === 'space_installation_setup')
        .map((s) => (s.event as { spaceId: string }).spaceId)
        .sort(),
    ).toEqual(['s2', 's3']);

    seen.length = 0;
    expect((await admin('POST', '/v1/orgs/acme/spaces', { id: 's4', title: 's4' })).status).toBe(201);
    const later = await settled();
    expect(later.map((s) => [s.integration, s.event.type, (s.event as { spaceId?: string }).spaceId])).toEqual([
      ['alpha', 'space_installation_setup', 's4'],
    ]);
    seen.length = 0;
    await emit({ type: 'space_content_updated', spaceId: 's4', revisionId: 'r', eventId: 'route-4' });
    expect((await settled()).map((s) => [s.integration, s.event.eventId])).toEqual([['alpha', 'route-4']]);
    expect((await admin('GET', `/v1/installations/${org}`)).body.space_selection).toEqual({ mode: 'all' });
  });

  it('mode selected with a list installs into exactly those; removing places needs an admin, and a refused patch changes nothing', async () => {
    const org = await orgInstallationOf('alpha');
    const refused = await bob('PATCH', `/v1/installations/${org}`, {
      space_selection: { mode: 'selected', spaces: ['s1'] },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/^choosing where it is installed needs the admin role/);
    expect((await ada('GET', `/v1/installations/${org}`)).body.space_selection).toEqual({ mode: 'all' });

    const patched = await ada('PATCH', `/v1/installations/${org}`, {
      space_selection: { mode: 'selected', spaces: ['s1', 's3'] },
      site_selection: { mode: 'selected', sites: ['w1'] },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.space_selection).toEqual({ mode: 'selected', spaces: ['s1', 's3'] });
    expect(patched.body.site_selection).toEqual({ mode: 'selected', sites: ['w1'] });
    await settled();
    seen.length = 0;
    for (const spaceId of ['s1', 's2', 's3', 's4']) {
      await emit({ type: 'space_content_updated', spaceId, revisionId: 'r', eventId: `route-5-${spaceId}` });
    }
    await emit({
      type: 'site_view',
      siteId: 'w1',
      visitor,
      url: 'https://d.test',
      referrer: '',
      eventId: 'route-5-w1',
    });
    const got = (await settled()).filter((s) => s.integration === 'alpha');
    expect(got.map((s) => s.event.eventId).sort()).toEqual(['route-5-s1', 'route-5-s3', 'route-5-w1']);
  });

  it('refuses bad selections with a clear error and no change', async () => {
    const org = await orgInstallationOf('alpha');
    const before = (await ada('GET', `/v1/installations/${org}`)).body;
    const unknown = await ada('PATCH', `/v1/installations/${org}`, {
      space_selection: { mode: 'selected', spaces: ['s1', 'nope'] },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toMatch(/the space nope/);
    const foreign = await ada('PATCH', `/v1/installations/${org}`, {
      space_selection: { mode: 'selected', spaces: ['g1'] },
    });
    expect(foreign.status).toBe(403);
    const both = await ada('PATCH', `/v1/installations/${org}`, { space_selection: { mode: 'all', spaces: ['s1'] } });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toMatch(/leave out `spaces`/);
    const typo = await ada('PATCH', `/v1/installations/${org}`, { space_selektion: { mode: 'all' } });
    expect(typo.status).toBe(400);
    const space = before.space_selection.spaces[0];
    const spaceInstallation = (
      await platform.ctx.db
        .selectFrom('installations')
        .select('id')
        .where('parent_id', '=', org)
        .where('target_id', '=', space)
        .where('uninstalled_at', 'is', null)
        .executeTakeFirstOrThrow()
    ).id;
    const onSpace = await ada('PATCH', `/v1/installations/${spaceInstallation}`, { space_selection: { mode: 'all' } });
    expect(onSpace.status).toBe(400);
    expect(onSpace.body.error.code).toBe('not_an_organization_installation');
    expect((await ada('GET', `/v1/installations/${org}`)).body).toEqual(before);
  });

  it('removing a space installation takes the space out of an `all` selection', async () => {
    const org = await ada('POST', '/v1/orgs/acme/installations', { integration: 'beta' }).then(() =>
      orgInstallationOf('beta'),
    );
    await ada('PATCH', `/v1/installations/${org}`, { space_selection: { mode: 'all' } });
    const s2 = await platform.ctx.db
      .selectFrom('installations')
      .select('id')
      .where('parent_id', '=', org)
      .where('target_id', '=', 's2')
      .where('uninstalled_at', 'is', null)
      .executeTakeFirstOrThrow();
    expect((await ada('DELETE', `/v1/installations/${s2.id}`)).status).toBe(204);
    expect((await ada('GET', `/v1/installations/${org}`)).body.space_selection).toEqual({
      mode: 'selected',
      spaces: ['s1', 's3', 's4'],
    });
  });

  it('a paused organization installation stops the events of its space installations', async () => {
    const org = await orgInstallationOf('beta');
    await settled();
    expect((await ada('POST', `/v1/installations/${org}/pause`)).status).toBe(200);
    seen.length = 0;
    await emit({ type: 'space_content_updated', spaceId: 's1', revisionId: 'r', eventId: 'route-6' });
    expect((await settled()).filter((s) => s.integration === 'beta')).toEqual([]);
    await ada('POST', `/v1/installations/${org}/resume`);
  });

  it('POST /v1/events/batch answers each event as the single route would, and routes the accepted ones', async () => {
    await emit({ type: 'space_content_updated', spaceId: 's1', revisionId: 'r', eventId: 'batch-old' });
    await settled();
    seen.length = 0;
    const answer = await admin('POST', '/v1/events/batch', {
      events: [
        { type: 'space_content_updated', spaceId: 's1', revisionId: 'r', eventId: 'batch-1' },
        { type: 'space_content_updated', spaceId: 's1', revisionId: 'r', eventId: 'batch-old' },
        { type: 'space_content_updated', spaceId: 's1', revisionId: 'r', eventId: 'batch-1' },
        { type: 'space_content_updated', spaceId: 's1', revisionId: 'r', eventId: 'batch-2', colour: 'red' },
        { type: 'space_content_updated', spaceId: 'nowhere', revisionId: 'r', eventId: 'batch-3' },
        { type: 'space_content_updated', spaceId: 's1', revisionId: 'r' },
      ],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const [fresh, old, again, invalid, unknown, generated] = answer.body.results;
    expect([fresh, old, again]).toEqual([
      { eventId: 'batch-1', duplicate: false },
      { eventId: 'batch-old', duplicate: true },
      { eventId: 'batch-1', duplicate: true },
    ]);
    expect(invalid.error).toEqual({
      code: 'invalid_event',
      message: expect.stringMatching(/unknown field `colour` in events\.3/),
    });
    expect(unknown.error).toMatchObject({ code: 'not_found', message: expect.stringMatching(/the space nowhere/) });
    expect(generated).toEqual({ eventId: expect.stringMatching(/^evt_/), duplicate: false });
    const got = await settled();
    expect(
      got
        .filter((s) => s.integration === 'alpha')
        .map((s) => s.event.eventId)
        .sort(),
    ).toEqual(['batch-1', generated.eventId].sort());
    // Too many, or not the operator: refused whole.
    const tooMany = await admin('POST', '/v1/events/batch', {
      events: Array.from({ length: 1001 }, (_, i) => ({ type: 'space_view', spaceId: 's1', eventId: `many-${i}` })),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toMatch(/events/);
    expect((await ada('POST', '/v1/events/batch', { events: [{ type: 'space_view', spaceId: 's1' }] })).status).toBe(
      403,
    );
    expect(
      (await platform.ctx.db.selectFrom('events').select('event_id').where('event_id', 'like', 'many-%').execute())
        .length,
    ).toBe(0);
  });

  async function orgInstallationOf(integration: string): Promise<string> {
    const row = await platform.ctx.db
      .selectFrom('installations')
      .select('id')
      .where('integration_name', '=', integration)
      .where('target_type', '=', 'organization')
      .where('uninstalled_at', 'is', null)
      .executeTakeFirstOrThrow();
    return row.id;
  }
});
