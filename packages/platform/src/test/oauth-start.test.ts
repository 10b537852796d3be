/**
 * OAuth start links on the real server, on SQLite and PostgreSQL, against a real OAuth server
 * (oidc-provider) and the oauth-connect example in workerd: the public OAuth path begins a flow
 * only through a signed, short-lived link bound to the installation and the session that asked
 * for it, and the provider's redirect back reaches the integration only in the browser that
 * started it. The platform's own cookies never reach integration code, and its pages cannot use
 * a dashboard session.
 */
import { run } from 'portico';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  authorizeInBrowser,
  listenOAuthProvider,
  type RunningProvider,
} from '../../../testing/src/test-support/oauth-provider.js';
import { SESSION_COOKIE } from '../access/sessions.js';
import { startOAuth } from '../calls/oauth-starts.js';
import { backends } from '../test-support/backends.js';
import { startWorld, type World } from '../test-support/world.js';

const examples = new URL('../../../../examples/', import.meta.url).pathname;

/** Answers its descriptor, and to any public request the headers it got, setting cookies of both kinds. */
const ECHO_SCRIPT = `export default { async fetch(request) {
  if (request.method === 'GET') return Response.json({ runtime: 'portico', versions: ['v1'], fetch: true, events: [], components: [] });
  const form = await request.formData();
  const event = JSON.parse(form.get('event'));
  const headers = new Headers({ 'content-type': 'application/json' });
  headers.append('set-cookie', 'portico_session=planted; Path=/');
  headers.append('set-cookie', 'theirs=1; Path=/');
  return new Response(JSON.stringify(Object.fromEntries(event.request.headers)), { headers });
} };`;

const ECHO_MANIFEST = `name: echo
title: Echo
description: Echoes what reaches its public endpoint.
organization: acme
visibility: private
scopes: []
configurations:
  account:
    properties:
      first:
        type: button
        button_text: Connect first
        callback_url: /first
      second:
        type: button
        button_text: Connect second
        callback_url: /second?via=button
      label:
        type: string
`;

describe.each(backends)('OAuth start links on $name', (backend) => {
  let world: World;
  let provider: RunningProvider;
  let ada: World['admin'];
  let oauth: string;
  let echo: string;
  let publicEndpoint: string;

  beforeAll(async () => {
    provider = await listenOAuthProvider();
    world = await startWorld(backend, { allowPrivateNetwork: true });
    ada = world.as(world.tokens.ada);
    const io = { out: () => {}, err: () => {}, cwd: examples, interactive: false, ask: async () => undefined };
    const saved = { ...process.env };
    Object.assign(process.env, {
      OAUTH_CLIENT_ID: 'portico',
      OAUTH_CLIENT_SECRET: 'oauth-secret',
      OAUTH_PROVIDER_URL: provider.url,
    });
    try {
      const code = await run(
        ['publish', 'oauth-connect', '--api', world.platform.url, '--token', world.tokens.ada],
        io,
      );
      if (code !== 0) throw new Error('portico publish oauth-connect failed');
    } finally {
      process.env = saved;
    }
    oauth = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'oauth-connect' })).body.id;
    publicEndpoint = `${world.platform.url}/v1/installations/${oauth}/public`;
    provider.start([
      { client_id: 'portico', client_secret: 'oauth-secret', redirect_uris: [`${publicEndpoint}/oauth`] },
    ]);
    expect((await ada('POST', '/v1/integrations', { manifest: ECHO_MANIFEST, script: ECHO_SCRIPT })).status).toBe(201);
    echo = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'echo' })).body.id;
  }, 120_000);
  afterAll(async () => {
    await world?.close();
    await provider?.close();
  });

  async function signIn(token: string) {
    const response = await fetch(`${world.platform.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    return {
      cookie: (response.headers.get('set-cookie') ?? '').split(';')[0] as string,
      csrf: ((await response.json()) as { csrfToken: string }).csrfToken,
    };
  }

  const open = (url: string, cookie?: string, accept?: string) =>
    fetch(url, {
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(accept ? { accept } : {}) },
    });

  it('refuses to begin a flow on the public OAuth path without a start link, and says what to do', async () => {
    for (const path of ['/oauth', '/oauth/', '/somewhere/oauth', '/OAUTH', '/%6Fauth']) {
      const refused = await open(`${publicEndpoint}${path}`);
      expect(refused.status, path).toBe(403);
      expect((await refused.json()).error).toEqual({
        code: 'oauth_not_started',
        message: expect.stringMatching(/starts only from the dashboard .*press Connect/),
      });
    }
    const page = await open(`${publicEndpoint}/oauth`, undefined, 'text/html');
    expect(page.status).toBe(403);
    expect(await page.text()).toMatch(/<h1>This connection cannot start here<\/h1>.*press Connect/s);
    // A forged provider callback does not reach the integration either.
    expect((await open(`${publicEndpoint}/oauth?code=x&state=y`)).status).toBe(403);
    // Other paths of the public endpoint are not OAuth paths.
    expect((await open(`${publicEndpoint}/other`)).status).toBe(404);
  });

  it('connects through the link of a signed-in session, in that browser only; the installation then shows it', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.spyOn(console, 'info').mockImplementation(() => {});
    // A member may not connect an account (it writes the configuration: the contract's Roles).
    const member = await signIn(world.tokens.bob);
    const byMember = await fetch(`${world.platform.url}/v1/installations/${oauth}/oauth/start`, {
      method: 'POST',
      headers: { cookie: member.cookie, 'x-csrf-token': member.csrf },
    });
    expect(byMember.status).toBe(403);
    expect(((await byMember.json()) as { error: { message: string } }).error.message).toMatch(
      /^connecting an account needs the admin role in the organization acme/,
    );
    const session = await signIn(world.tokens.ada);
    const asked = await fetch(`${world.platform.url}/v1/installations/${oauth}/oauth/start`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    });
    expect(asked.status).toBe(200);
    const link = (await asked.json()) as { url: string; property: string; expiresAt: string };
    expect(link.property).toBe('oauth_credentials');
    expect(link.url).toMatch(new RegExp(`^${publicEndpoint}/oauth\\?portico_oauth_start=[\\w-]+\\.[\\w-]+$`));
    const expires = Date.parse(link.expiresAt) - Date.now();
    expect(expires).toBeGreaterThan(4 * 60 * 1000);
    expect(expires).toBeLessThanOrEqual(5 * 60 * 1000);

    // Another browser (no session, or another person's) cannot use it.
    const elsewhere = await open(link.url);
    expect(elsewhere.status).toBe(403);
    expect((await elsewhere.json()).error.message).toMatch(/belongs to another browser session/);
    expect((await open(link.url, (await signIn(world.tokens.bob)).cookie)).status).toBe(403);

    const start = await open(link.url, session.cookie);
    expect(start.status, await start.clone().text()).toBe(302);
    const setCookie = start.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(
      new RegExp(
        `^portico_oauth=[\\w-]+\\.[\\w-]+; Max-Age=600; Path=/v1/installations/${oauth}/public; HttpOnly; SameSite=Lax$`,
      ),
    );
    const location = new URL(start.headers.get('location') ?? '');
    expect(location.origin).toBe(provider.url);
    // The start parameter never reaches the integration (so not the provider either).
    expect(location.href).not.toMatch(/portico_oauth_start/);

    const callback = await authorizeInBrowser(location, publicEndpoint);
    // The provider's redirect back, in a browser that did not start the flow: refused.
    expect((await open(callback)).status).toBe(403);
    const done = await open(callback, setCookie.split(';')[0]);
    expect(await done.text()).toMatch(/<h1>Connected<\/h1>/);
    const page = (await ada('GET', `/v1/installations/${oauth}?view=page`)).body;
    expect(page.status).toBe('active');
    expect(page.configuration.oauth_credentials.access_token).toMatch(/^\S{20,}$/);
    expect(page.fields).toEqual([expect.objectContaining({ name: 'oauth_credentials', connected: true })]);
  }, 60_000);

  it('refuses a tampered, expired or misdirected link', async () => {
    const link = (await ada('POST', `/v1/installations/${oauth}/oauth/start`)).body.url as string;
    const tampered = link.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    const refusedTampered = await open(tampered);
    expect(refusedTampered.status).toBe(403);
    expect((await refusedTampered.json()).error.code).toBe('oauth_start_refused');
    const past = { ...world.platform.ctx, now: () => Date.now() - 6 * 60 * 1000 };
    const expired = await startOAuth(past, { kind: 'admin' }, oauth, undefined, undefined);
    expect((await open(expired.url)).status).toBe(403);
    // The link of one installation does not open another's OAuth path.
    const token = new URL(link).searchParams.get('portico_oauth_start') ?? '';
    const other = `${world.platform.url}/v1/installations/${echo}/public/first?portico_oauth_start=${token}`;
    expect((await open(other)).status).toBe(403);
    // A link made with a bearer token is bound to no session: it works in any browser, for 5 minutes.
    expect((await open(link)).status).toBe(302);
  });

  it('checks what it is asked for: the button, the caller, the installation', async () => {
    const start = (body?: object, as = ada, id = oauth) => as('POST', `/v1/installations/${id}/oauth/start`, body);
    expect((await start({ property: 'oauth_credential' })).body.error).toEqual({
      code: 'unknown_property',
      message: expect.stringMatching(/`oauth_credential` is not a property .*did you mean "oauth_credentials"\?/),
    });
    const several = await start(undefined, ada, echo);
    expect(several.body.error).toEqual({
      code: 'property_required',
      message: 'name the button to connect in `property`: one of `first`, `second`',
    });
    expect((await start({ property: 'label' }, ada, echo)).body.error.code).toBe('not_a_button');
    const second = await start({ property: 'second' }, ada, echo);
    expect(second.body.url).toMatch(
      new RegExp(`/v1/installations/${echo}/public/second\\?via=button&portico_oauth_start=`),
    );
    expect((await start({ nope: 1 })).body.error.code).toBe('invalid_request');
    expect((await start(undefined, world.as(world.tokens.carol))).status).toBe(403);
    expect((await start(undefined, world.anonymous)).status).toBe(401);
    const webhook = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body.id;
    expect((await start(undefined, ada, webhook)).body.error.code).toBe('no_oauth_button');
    await ada('POST', `/v1/installations/${webhook}/pause`);
    expect((await start(undefined, ada, webhook)).body.error.code).toBe('installation_paused');
    // A session asking without its CSRF token is refused.
    const session = await signIn(world.tokens.ada);
    const noCsrf = await fetch(`${world.platform.url}/v1/installations/${oauth}/oauth/start`, {
      method: 'POST',
      headers: { cookie: session.cookie },
    });
    expect(noCsrf.status).toBe(403);
    expect(((await noCsrf.json()) as { error: { code: string } }).error.code).toBe('csrf_refused');
  });

  it('keeps the platform’s cookies from integration code, and puts its pages in an origin of their own', async () => {
    const session = await signIn(world.tokens.ada);
    const response = await fetch(`${world.platform.url}/v1/installations/${echo}/public/hello`, {
      method: 'POST',
      headers: { cookie: `${session.cookie}; portico_oauth=x; theirs=1`, 'content-type': 'text/plain' },
      body: 'hi',
    });
    expect(response.status).toBe(200);
    const seen = (await response.json()) as Record<string, string>;
    expect(seen.cookie).toBe('theirs=1');
    expect(response.headers.getSetCookie()).toEqual(['theirs=1; Path=/']);
    expect(response.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts/);
    expect(session.cookie.startsWith(`${SESSION_COOKIE}=`)).toBe(true);
  });
});
