/**
 * End to end on the real server: the examples and a recording integration published with
 * `portico publish`, installed, configured, sent every runtime event, rendered, called on their
 * public endpoints, and connected through OAuth, all running in workerd.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from 'portico';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  authorizeInBrowser,
  listenOAuthProvider,
  type RunningProvider,
} from '../../../testing/src/test-support/oauth-provider.js';
import { type RunningPlatform, startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { until } from '../test-support/webhook-world.js';

const examples = new URL('../../../../examples/', import.meta.url).pathname;
const recorderDir = new URL('../../test-fixtures/recorder', import.meta.url).pathname;

const RECORDER_MANIFEST = `name: recorder
title: Recorder
description: Sends every event and request it receives to a test server.
organization: acme
visibility: private
scopes: [space:content:read, space:metadata:read, space:git:sync, site:views:read]
script: index.ts
blocks:
  - id: counter
    title: Counter
    description: Counts presses.
  - id: ghost
    title: Ghost
    description: Has no component.
secrets:
  RECORDER_URL: \${{ env.RECORDER_URL }}
`;

let platform: RunningPlatform;
let dataDir: string;
let recorder: Server;
let recorderUrl: string;
let provider: RunningProvider;
const recorded: { event: { type: string; eventId: string; [k: string]: unknown }; environment: Record<string, any> }[] =
  [];
let ada: ReturnType<typeof client>;
let admin: ReturnType<typeof client>;
let adaToken: string;

async function publish(dir: string, env: Record<string, string> = {}) {
  const io = {
    out: () => {},
    err: (t: string) => void errors.push(t),
    cwd: examples,
    interactive: false,
    ask: async () => undefined,
  };
  const errors: string[] = [];
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const code = await run(['publish', dir, '--api', platform.url, '--token', adaToken], io);
    if (code !== 0) throw new Error(`portico publish ${dir} failed: ${errors.join('')}`);
  } finally {
    process.env = saved;
  }
}

beforeAll(async () => {
  recorder = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      recorded.push(JSON.parse(body));
      res.end('ok');
    });
  });
  await new Promise<void>((r) => recorder.listen(0, '127.0.0.1', r));
  recorderUrl = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}/record`;
  provider = await listenOAuthProvider();
  dataDir = await mkdtemp(join(tmpdir(), 'portico-e2e-'));
  platform = await startPlatform({ port: 0, host: '127.0.0.1', dataDir, allowPrivateNetwork: true });
  admin = client(platform.url, platform.adminToken);
  await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
  await admin('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' });
  await admin('POST', '/v1/orgs/acme/sites', { id: 'site', title: 'Site' });
  adaToken = (await admin('POST', '/v1/users', { id: 'ada', name: 'Ada' })).body.token;
  await admin('PUT', '/v1/orgs/acme/members/ada', { role: 'admin' });
  ada = client(platform.url, adaToken);
  await publish(recorderDir, { RECORDER_URL: recorderUrl });
  await publish('hello-world', { HELLO_WORLD_API_KEY: 'hello-key' });
  await publish('public-endpoint');
  await publish('oauth-connect', {
    OAUTH_CLIENT_ID: 'portico',
    OAUTH_CLIENT_SECRET: 'oauth-secret',
    OAUTH_PROVIDER_URL: provider.url,
  });
}, 120_000);

afterAll(async () => {
  await platform?.close();
  await provider?.close();
  await new Promise<void>((r) => recorder?.close(() => r()));
  await rm(dataDir, { recursive: true, force: true });
});

describe('end to end, in workerd', () => {
  let org: string;
  let space: string;
  let site: string;

  it('warns at publish about a block without its component', async () => {
    const response = await ada('POST', '/v1/integrations', {
      manifest: RECORDER_MANIFEST.replace('name: recorder', 'name: recorder-two'),
      script: (await platform.dispatcher.bundle('recorder')).script,
      secrets: { RECORDER_URL: recorderUrl },
    });
    expect(response.body.warnings).toEqual([
      'the block "ghost" has no component: the script defines "counter"; add createComponent({ componentId: "ghost", … }) or remove the block',
    ]);
  }, 30_000);

  it('dispatches the setup events of installs, in order, with a true environment', async () => {
    org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'recorder' })).body.id;
    space = (await ada('POST', `/v1/installations/${org}/spaces/docs`)).body.id;
    site = (await ada('POST', `/v1/installations/${org}/sites/site`)).body.id;
    const setups = await until('three setup events', () => {
      const found = recorded.filter((r) => r.event.type.endsWith('installation_setup'));
      return found.length >= 3 ? found : undefined;
    });
    expect(setups.map((r) => [r.event.type, r.event.installationId])).toEqual([
      ['installation_setup', org],
      ['space_installation_setup', space],
      ['site_installation_setup', site],
    ]);
    const orgEnvironment = setups[0]?.environment ?? {};
    expect(orgEnvironment).toMatchObject({
      apiEndpoint: platform.url,
      apiTokens: { installation: expect.stringMatching(/^pti_/) },
      integration: { name: 'recorder', urls: { publicEndpoint: `${platform.url}/v1/installations/${org}/public` } },
      id: org,
      status: 'active',
      configuration: {},
      urls: { publicEndpoint: `${platform.url}/v1/installations/${org}/public` },
      secrets: { RECORDER_URL: recorderUrl },
      installationKey: expect.any(String),
      organization: 'acme',
      target: 'organization',
      space_selection: { mode: 'selected', spaces: [] },
      site_selection: { mode: 'selected', sites: [] },
      externalIds: [],
    });
    expect(setups[1]?.environment).toMatchObject({
      target: 'space',
      space: 'docs',
      parentInstallationId: org,
      id: space,
      installation: {
        id: org,
        status: 'active',
        configuration: {},
        space_selection: { mode: 'selected', spaces: ['docs'] },
        urls: { publicEndpoint: `${platform.url}/v1/installations/${org}/public` },
      },
    });
    expect(setups[2]?.environment).toMatchObject({ target: 'site', site: 'site', id: site });
    // The token in the envelope works for this installation's API, and only for it.
    const own = client(platform.url, orgEnvironment.apiTokens.installation);
    expect((await own('GET', `/v1/installations/${org}`)).status).toBe(200);
    expect((await own('GET', `/v1/installations/${space}`)).status).toBe(403);
  }, 60_000);

  it('routes each runtime event once per integration: to its installation in that space or site, once per eventId', async () => {
    const visitor = { anonymousId: 'anon', userAgent: 'test', ip: '192.0.2.1', cookies: {} };
    const events = [
      { type: 'space_view', spaceId: 'docs', eventId: 'e-view' },
      { type: 'space_content_updated', spaceId: 'docs', revisionId: 'r1', eventId: 'e-content' },
      { type: 'space_visibility_updated', spaceId: 'docs', visibility: 'public', eventId: 'e-visibility' },
      { type: 'space_gitsync_started', spaceId: 'docs', eventId: 'e-sync-start' },
      { type: 'space_gitsync_completed', spaceId: 'docs', state: 'success', eventId: 'e-sync-done' },
      {
        type: 'site_view',
        siteId: 'site',
        visitor,
        url: 'https://docs.acme.test/a',
        referrer: '',
        eventId: 'e-site-view',
      },
      {
        type: 'page_feedback',
        siteId: 'site',
        spaceId: 'docs',
        pageId: 'p1',
        feedback: { rating: 'good', comment: 'nice' },
        visitor,
        url: 'https://docs.acme.test/a',
        referrer: '',
        eventId: 'e-feedback',
      },
    ];
    for (const event of events)
      expect(await admin('POST', '/v1/events', event)).toEqual({
        status: 202,
        body: { eventId: event.eventId, duplicate: false },
      });
    expect((await admin('POST', '/v1/events', events[1])).body).toEqual({ eventId: 'e-content', duplicate: true });
    const expected = events.length; // the space or the site installation; the organization installation gets none
    const got = await until('every event at its installations', () => {
      const found = recorded.filter((r) => r.event.eventId.startsWith('e-'));
      return found.length >= expected ? found : undefined;
    });
    await new Promise((r) => setTimeout(r, 300)); // nothing more arrives
    const delivered = recorded
      .filter((r) => r.event.eventId.startsWith('e-'))
      .map((r) => `${r.event.eventId}→${r.event.installationId}`);
    expect(delivered.sort()).toEqual(
      events
        .map((e) => `${e.eventId}→${e.type.startsWith('site') || e.type === 'page_feedback' ? site : space}`)
        .sort(),
    );
    expect(got.find((r) => r.event.eventId === 'e-content')?.event).toMatchObject({
      type: 'space_content_updated',
      spaceId: 'docs',
      revisionId: 'r1',
    });
  }, 60_000);

  it('records each dispatch with its host, status, duration and logs', async () => {
    const { body } = await ada('GET', `/v1/installations/${space}/dispatches`);
    const content = body.find((d: { eventId: string }) => d.eventId === 'e-content');
    expect(content).toMatchObject({
      type: 'space_content_updated',
      host: 'workerd',
      status: 204,
      error: null,
      logs: ['recording space_content_updated'],
    });
    expect(content.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('refuses events for places that do not exist, and from anyone but the operator', async () => {
    expect((await admin('POST', '/v1/events', { type: 'space_view', spaceId: 'nowhere' })).status).toBe(404);
    expect((await admin('POST', '/v1/events', { type: 'installation_setup', spaceId: 'docs' })).status).toBe(400);
    expect((await ada('POST', '/v1/events', { type: 'space_view', spaceId: 'docs' })).status).toBe(403);
  });

  it('renders a component and runs its actions; refuses unknown components', async () => {
    const first = await ada('POST', `/v1/installations/${org}/components/counter/render`, {});
    expect(first).toEqual({
      status: 200,
      body: {
        element: {
          type: 'block',
          children: [
            { type: 'text', children: 'Count: 0' },
            { type: 'button', label: 'Add', onPress: { action: 'add' } },
          ],
        },
        state: { count: 0 },
      },
    });
    const pressed = await ada('POST', `/v1/installations/${org}/components/counter/render`, {
      state: { count: 41 },
      action: { action: 'add' },
    });
    expect(pressed.body.state).toEqual({ count: 42 });
    const missing = await ada('POST', `/v1/installations/${org}/components/ghost/render`, {});
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toMatch(/no component "ghost"/);
  }, 30_000);

  it('hands public-endpoint requests to the integration byte for byte', async () => {
    const body = new Uint8Array(4096).map((_, i) => (i * 31) % 256);
    const response = await fetch(`${platform.url}/v1/installations/${org}/public/hooks/x?y=1&z=%20`, {
      method: 'PUT',
      body,
      headers: { 'content-type': 'application/octet-stream', 'x-custom': 'kept' },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-method')).toBe('PUT');
    expect(response.headers.get('x-url')).toBe(`${platform.url}/v1/installations/${org}/public/hooks/x?y=1&z=%20`);
    expect(response.headers.get('x-custom')).toBe('kept');
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(body);
  }, 30_000);

  it('answers 413 over the body limit, 404 for an unknown installation, 503 while paused', async () => {
    const big = await fetch(`${platform.url}/v1/installations/${org}/public`, {
      method: 'POST',
      body: new Uint8Array(10 * 1024 * 1024 + 1),
    });
    expect(big.status).toBe(413);
    expect((await fetch(`${platform.url}/v1/installations/inst_nope/public`)).status).toBe(404);
    await ada('POST', `/v1/installations/${org}/pause`);
    const paused = await fetch(`${platform.url}/v1/installations/${org}/public`);
    expect(paused.status).toBe(503);
    expect((await paused.json()).error.code).toBe('installation_paused');
    await ada('POST', `/v1/installations/${org}/resume`);
  });

  it('public-endpoint: GET answers 405 "Method not allowed", POST 200 { received: true } and records the arrival', async () => {
    const id = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'public-endpoint' })).body.id;
    const get = await fetch(`${platform.url}/v1/installations/${id}/public`);
    expect(get.status).toBe(405);
    expect(await get.text()).toBe('Method not allowed');
    const post = await fetch(`${platform.url}/v1/installations/${id}/public`, {
      method: 'POST',
      body: '{"hello":"world"}',
    });
    expect(post.status).toBe(200);
    expect(await post.json()).toEqual({ received: true });
    // The work after the response wrote the configuration through the API with the installation's token.
    const configured = await until('the arrival recorded', async () => {
      const { body } = await ada('GET', `/v1/installations/${id}`);
      return body.configuration.last_received_at ? body : undefined;
    });
    expect(configured.configuration.last_received_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  }, 30_000);

  it('hello-world: configured, active, renders its greeting', async () => {
    const id = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'hello-world' })).body.id;
    expect((await ada('PATCH', `/v1/installations/${id}/configuration`, { greeting: 'Howdy' })).body.status).toBe(
      'active',
    );
    const rendered = await ada('POST', `/v1/installations/${id}/components/greeting/render`, {
      props: { name: 'Ada' },
      state: { count: 1 },
      action: { action: 'say-hello' },
    });
    expect(rendered.body.state).toEqual({ count: 2 });
    expect(rendered.body.element.children[0]).toEqual({ type: 'text', style: 'bold', children: 'Howdy, Ada!' });
  }, 30_000);

  it('OAuth: press connect, authorize at the provider, the token lands in the configuration and the installation becomes active', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.spyOn(console, 'info').mockImplementation(() => {});
    const installation = await ada('POST', '/v1/orgs/acme/installations', { integration: 'oauth-connect' });
    const id = installation.body.id;
    expect(installation.body.status).toBe('pending');
    const publicEndpoint = `${platform.url}/v1/installations/${id}/public`;
    provider.start([
      { client_id: 'portico', client_secret: 'oauth-secret', redirect_uris: [`${publicEndpoint}/oauth`] },
    ]);
    // The button's callback_url (/oauth) on the public endpoint starts the flow, but only through a
    // start link (the dashboard's Connect button): opened directly, it is refused.
    const direct = await fetch(`${publicEndpoint}/oauth`, { redirect: 'manual' });
    expect(direct.status).toBe(403);
    expect((await direct.json()).error.code).toBe('oauth_not_started');
    const link = await ada('POST', `/v1/installations/${id}/oauth/start`, { property: 'oauth_credentials' });
    expect(link.status).toBe(200);
    const start = await fetch(link.body.url, { redirect: 'manual' });
    expect(start.status, await start.clone().text()).toBe(302);
    const flowCookie = (start.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const callback = await authorizeInBrowser(new URL(start.headers.get('location') ?? ''), publicEndpoint);
    const done = await fetch(callback, { redirect: 'manual', headers: { cookie: flowCookie } });
    expect(await done.text()).toMatch(/<h1>Connected<\/h1>/);
    const { body } = await ada('GET', `/v1/installations/${id}`);
    expect(body.status).toBe('active');
    expect(body.configuration.oauth_credentials.access_token).toMatch(/^\S{20,}$/);
  }, 60_000);
});

describe('durability', () => {
  it('an event accepted just before a crash is dispatched after the restart', async () => {
    const before = recorded.length;
    await platform.dispatcher.stop(); // accepted, never dispatched by this run
    expect(
      (
        await admin('POST', '/v1/events', {
          type: 'space_content_updated',
          spaceId: 'docs',
          revisionId: 'r9',
          eventId: 'e-after-crash',
        })
      ).status,
    ).toBe(202);
    const { port } = new URL(platform.url);
    await platform.close();
    platform = await startPlatform({ port: Number(port), host: '127.0.0.1', dataDir, allowPrivateNetwork: true });
    await until('the event after the restart', () => {
      const found = recorded.slice(before).filter((r) => r.event.eventId === 'e-after-crash');
      return found.length >= 1 ? found : undefined;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(recorded.slice(before).filter((r) => r.event.eventId === 'e-after-crash')).toHaveLength(1);
  }, 60_000);
});
