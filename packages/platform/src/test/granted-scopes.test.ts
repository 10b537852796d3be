/**
 * Granted scopes (DESIGN.md "Granted scopes", decision 054) on the real server, on SQLite and
 * PostgreSQL. A publisher in `pub` publishes a public integration; an admin of `acme` installs it.
 * A new version asking for more gets no more in `acme` until an admin there accepts: not the new
 * scope's events, nor what its token may read with it, nor its site script; what was granted keeps
 * working; `acme` is alerted and the installation shows the request. A member cannot accept; an
 * admin can, which widens it and sends a setup event. A version asking for fewer narrows at once;
 * an installation asked for more can be uninstalled without accepting.
 */
import { createIntegration, type RuntimeEvent } from '@portico/runtime';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OperatorAlert } from '../alerts/operator-alerts.js';
import { type RunningPlatform, startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until } from '../test-support/webhook-world.js';

const seen: RuntimeEvent[] = [];
const record = (event: RuntimeEvent) => void seen.push(event);
const spy = createIntegration({
  events: {
    installation_setup: record,
    space_installation_setup: record,
    site_installation_setup: record,
    space_content_updated: record,
    space_gitsync_started: record,
  },
});

const manifest = (scopes: string[]) => `name: spy
title: Spy
description: Receives what it is granted
organization: pub
visibility: public
scopes: [${scopes.join(', ')}]
`;

describe.each(backends)('granted scopes on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  let platform: RunningPlatform;
  let cleanup: () => Promise<void>;
  let admin: ReturnType<typeof client>;
  let ada: ReturnType<typeof client>;
  let bob: ReturnType<typeof client>;
  let carol: ReturnType<typeof client>;
  let orgId: string;
  let token: ReturnType<typeof client>;

  beforeAll(async () => {
    await receiver.start();
    const fresh = await backend.fresh();
    cleanup = fresh.cleanup;
    platform = await startPlatform(
      { ...fresh.config, allowPrivateNetwork: true },
      { inProcess: new Map([['spy', spy]]) },
    );
    admin = client(platform.url, platform.adminToken);
    await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    await admin('POST', '/v1/orgs', { id: 'pub', title: 'Publisher' });
    await admin('POST', '/v1/orgs/acme/spaces', { id: 's1', title: 's1' });
    await admin('POST', '/v1/orgs/acme/sites', { id: 'w1', title: 'w1' });
    const user = async (id: string, org: string, role: string) => {
      const made = await admin('POST', '/v1/users', { id, name: id });
      await admin('PUT', `/v1/orgs/${org}/members/${id}`, { role });
      return client(platform.url, made.body.token);
    };
    ada = await user('ada', 'acme', 'admin');
    bob = await user('bob', 'acme', 'member');
    carol = await user('carol', 'pub', 'admin');
    expect((await ada('PUT', '/v1/orgs/acme/alert-url', { url: `${receiver.url}/acme-alerts` })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await cleanup?.();
    await receiver.close();
  });
  beforeEach(() => {
    seen.length = 0;
  });

  /** Waits until every event is routed and nothing is owed. */
  async function settled(): Promise<RuntimeEvent[]> {
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

  let n = 0;
  /** Emits a content update and a Git sync start in s1; answers the types the spy received. */
  async function both(): Promise<string[]> {
    await settled();
    seen.length = 0;
    n++;
    for (const event of [
      { type: 'space_content_updated', spaceId: 's1', revisionId: `r${n}`, eventId: `content-${n}` },
      { type: 'space_gitsync_started', spaceId: 's1', eventId: `sync-${n}` },
    ]) {
      expect((await admin('POST', '/v1/events', event)).status).toBe(202);
    }
    return (await settled()).map((event) => event.type).filter((type) => !type.endsWith('_setup'));
  }

  const publish = async (scopes: string[], by = carol) => {
    const published = await by('POST', '/v1/integrations', { manifest: manifest(scopes), script: '// in-process' });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
  };
  const scopesOf = async (id = orgId) => (await bob('GET', `/v1/installations/${id}`)).body.scopes;
  const readSite = () => token('GET', '/compat/gitbook/v1/orgs/acme/sites/w1');

  it('installs with the scopes the version asks for: they are granted', async () => {
    await publish(['space:content:read']);
    // Installing with scopes the admin was not shown all of installs nothing.
    const blind = await ada('POST', '/v1/orgs/acme/installations', { integration: 'spy', scopes: [] });
    expect(blind.status).toBe(400);
    expect(blind.body.error).toMatchObject({ code: 'scopes_changed' });
    expect(blind.body.error.message).toMatch(/now asks for space:content:read, which you were not shown/);
    const installed = await ada('POST', '/v1/orgs/acme/installations', {
      integration: 'spy',
      scopes: ['space:content:read'],
    });
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    orgId = installed.body.id;
    const space = await ada('POST', `/v1/installations/${orgId}/spaces/s1`);
    expect(space.status).toBe(201);
    expect((await ada('POST', `/v1/installations/${orgId}/sites/w1`)).status).toBe(201);
    expect(await scopesOf()).toEqual({ granted: ['space:content:read'], requested: [] });
    // A space installation shows its organization installation's grant.
    expect(await scopesOf(space.body.id)).toEqual({ granted: ['space:content:read'], requested: [] });
    const row = await platform.ctx.db
      .selectFrom('installation_tokens')
      .select('token')
      .where('installation_id', '=', orgId)
      .executeTakeFirstOrThrow();
    token = client(platform.url, platform.ctx.box.open(row.token));
    expect(await both()).toEqual(['space_content_updated']);
    expect((await readSite()).status).toBe(403);
  });

  it('a version asking for more gets nothing more until an admin accepts; the organization is alerted', async () => {
    await publish(['space:content:read', 'space:git:sync', 'site:metadata:read']);
    expect(await scopesOf()).toEqual({
      granted: ['space:content:read'],
      requested: ['space:git:sync', 'site:metadata:read'],
    });
    // What was granted keeps working; the new scope's events do not come, nor may its token read a site.
    expect(await both()).toEqual(['space_content_updated']);
    const refused = await readSite();
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/site scope its organization granted/);
    const alert = await until('the scope request alert', () =>
      receiver
        .at('/acme-alerts')
        .map((request) => JSON.parse(request.body) as OperatorAlert)
        .find((a) => a.type === 'installation.scopes_requested'),
    );
    expect(alert).toMatchObject({
      installation: { id: orgId, integration: 'spy', organizationId: 'acme' },
      scopes: { version: 2, granted: ['space:content:read'], requested: ['space:git:sync', 'site:metadata:read'] },
    });
    // The operator lists it; nobody else does.
    const listed = await admin('GET', '/v1/scope-requests');
    expect(listed.body).toEqual([
      {
        installationId: orgId,
        integration: 'spy',
        organization: 'acme',
        version: 2,
        granted: ['space:content:read'],
        requested: ['space:git:sync', 'site:metadata:read'],
      },
    ]);
    expect((await ada('GET', '/v1/scope-requests')).status).toBe(403);
  });

  it('a member cannot accept, nor the installation itself, nor with scopes it was not shown; an admin can, which widens it', async () => {
    const member = await bob('POST', `/v1/installations/${orgId}/scopes/accept`);
    expect(member.status).toBe(403);
    expect(member.body.error.message).toMatch(/^accepting new permissions needs the admin role/);
    expect((await token('POST', `/v1/installations/${orgId}/scopes/accept`)).status).toBe(403);
    const stale = await ada('POST', `/v1/installations/${orgId}/scopes/accept`, { scopes: ['space:git:sync'] });
    expect(stale.status).toBe(400);
    expect(stale.body.error.code).toBe('scopes_changed');
    // Refused: nothing changed.
    expect((await scopesOf()).requested).toEqual(['space:git:sync', 'site:metadata:read']);
    expect(await both()).toEqual(['space_content_updated']);

    const accepted = await ada('POST', `/v1/installations/${orgId}/scopes/accept`, {
      scopes: ['space:content:read', 'space:git:sync', 'site:metadata:read'],
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const all = ['space:content:read', 'space:git:sync', 'site:metadata:read'];
    expect(accepted.body).toEqual({ granted: all, requested: [] });
    expect(await scopesOf()).toEqual({ granted: all, requested: [] });
    // Its grant changed: a setup event says so.
    expect((await settled()).find((e) => e.type === 'installation_setup')).toBeDefined();
    expect(await both()).toEqual(['space_content_updated', 'space_gitsync_started']);
    expect((await readSite()).status).toBe(200);
    expect((await admin('GET', '/v1/scope-requests')).body).toEqual([]);
  });

  it('a version asking for fewer narrows at once', async () => {
    await publish(['space:content:read']);
    expect(await scopesOf()).toEqual({ granted: ['space:content:read'], requested: [] });
    expect(await both()).toEqual(['space_content_updated']);
    expect((await readSite()).status).toBe(403);
  });

  it('asking again is a request again, and uninstalling needs no accepting', async () => {
    await publish(['space:content:read', 'space:git:sync']);
    expect((await scopesOf()).requested).toEqual(['space:git:sync']);
    expect(await both()).toEqual(['space_content_updated']);
    expect((await ada('DELETE', `/v1/installations/${orgId}`)).status).toBe(204);
    expect((await ada('GET', `/v1/installations/${orgId}`)).status).toBe(404);
    expect((await admin('GET', '/v1/scope-requests')).body).toEqual([]);
  });
});
