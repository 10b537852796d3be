/**
 * The integration-wide public endpoints of a GitBook-dialect integration (decision 030), on the
 * real server, on SQLite and PostgreSQL, against a real OAuth server (oidc-provider): a worker
 * written for these tests the way that runtime answers (run in workerd) registers ONE redirect URL,
 * `integration.urls.publicEndpoint + '/oauth'`, and its Connect flow completes: begun on the
 * installation's public endpoint with the dashboard's start link, finished on the integration's,
 * where the flow's cookie tells the platform whose installation it is. Without that cookie, a
 * request there gets the integration's environment (no installation, no token).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizeInBrowser,
  listenOAuthProvider,
  type RunningProvider,
} from '../../../testing/src/test-support/oauth-provider.js';
import { backends } from '../test-support/backends.js';
import { startWorld, type World } from '../test-support/world.js';

/**
 * A worker written as that runtime answers (`GET /v1` a 500, the envelope's parts read as text, a
 * 406 for what it does not handle). `/oauth` without a code sends the browser to the provider with
 * the integration-wide redirect URL and the installation's id as `state` (PKCE's verifier an HMAC
 * of it with `signingSecrets.integration`); with a code, it exchanges it and stores the token in
 * the installation named by `state`, through `apiEndpoint` with `apiTokens.integration`. `/whoami`
 * answers what its environment says.
 */
const worker = (provider: string) => `const PROVIDER = ${JSON.stringify(provider)};
const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
async function verifierOf(secret, state) {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return b64url(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(state)));
}
export default { async fetch(request) {
  if (request.method === 'GET') return new Response('no such route', { status: 500 });
  const form = await request.formData();
  const event = JSON.parse(form.get('event'));
  const environment = JSON.parse(form.get('environment'));
  if (event.type !== 'fetch') return Response.json({ error: 'not handled' }, { status: 406 });
  const url = new URL(event.request.url);
  if (url.pathname.endsWith('/whoami')) {
    return Response.json({
      path: url.pathname,
      installation: environment.installation ? environment.installation.id : null,
      token: environment.apiTokens.integration,
      urls: environment.integration.urls,
      signing: typeof environment.signingSecrets.integration,
      bodyLength: form.get('fetch-body') ? form.get('fetch-body').size : 0,
    });
  }
  if (!url.pathname.endsWith('/oauth')) return new Response('not found', { status: 404 });
  const redirectUri = environment.integration.urls.publicEndpoint + '/oauth';
  const code = url.searchParams.get('code');
  if (code === null) {
    const state = environment.installation.id;
    const verifier = await verifierOf(environment.signingSecrets.integration, state);
    const target = new URL(PROVIDER + '/auth');
    target.searchParams.set('response_type', 'code');
    target.searchParams.set('client_id', 'gb-client');
    target.searchParams.set('redirect_uri', redirectUri);
    target.searchParams.set('scope', 'openid');
    target.searchParams.set('prompt', 'consent');
    target.searchParams.set('state', state);
    target.searchParams.set('code_challenge', b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
    target.searchParams.set('code_challenge_method', 'S256');
    return new Response(null, { status: 302, headers: { location: target.toString() } });
  }
  const state = url.searchParams.get('state');
  const exchanged = await fetch(PROVIDER + '/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri,
      code_verifier: await verifierOf(environment.signingSecrets.integration, state),
      client_id: 'gb-client', client_secret: 'gb-secret' }),
  });
  if (!exchanged.ok) return new Response('token: ' + (await exchanged.text()), { status: 502 });
  const { access_token } = await exchanged.json();
  const stored = await fetch(environment.apiEndpoint + '/v1/integrations/' + environment.integration.name + '/installations/' + state, {
    method: 'PATCH',
    headers: { authorization: 'Bearer ' + environment.apiTokens.integration, 'content-type': 'application/json' },
    body: JSON.stringify({ configuration: { oauth_credentials: { access_token } } }),
  });
  if (!stored.ok) return new Response('store: ' + stored.status + ' ' + (await stored.text()), { status: 502 });
  return new Response('<!doctype html><h1>Connected</h1>', { headers: { 'content-type': 'text/html' } });
} };`;

const manifest = (name: string) => `# Translated by portico from gitbook-manifest.yaml
name: ${name}
title: ${name}
description: Connects an account with one redirect URL for the whole integration
organization: acme
visibility: private
scopes: []
configurations:
  account:
    properties:
      oauth_credentials:
        type: button
        button_text: Connect
        callback_url: /oauth
`;
const facts = { target: 'organization', configurationComponents: {}, blocks: {} };

describe.each(backends)('integration-wide public endpoints on $name', (backend) => {
  let world: World;
  let provider: RunningProvider;
  let ada: World['admin'];
  let installation: string;
  let other: string;
  const integrationEndpoint = () => `${world.platform.url}/v1/integrations/gb-oauth/public`;

  beforeAll(async () => {
    provider = await listenOAuthProvider();
    world = await startWorld(backend, { allowPrivateNetwork: true });
    ada = world.as(world.tokens.ada);
    for (const name of ['gb-oauth', 'gb-other']) {
      const published = await ada('POST', '/v1/integrations', {
        manifest: manifest(name),
        script: worker(provider.url),
        gitbook: facts,
      });
      if (published.status !== 201) throw new Error(`publish ${name}: ${JSON.stringify(published.body)}`);
    }
    provider.start([
      { client_id: 'gb-client', client_secret: 'gb-secret', redirect_uris: [`${integrationEndpoint()}/oauth`] },
    ]);
    installation = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'gb-oauth' })).body.id;
    other = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'gb-other' })).body.id;
  }, 120_000);
  afterAll(async () => {
    await world?.close();
    await provider?.close();
  });

  const open = (url: string, cookie?: string) => fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });

  it('completes a Connect whose provider redirects to the one integration-wide URL', async () => {
    const link = (await ada('POST', `/v1/installations/${installation}/oauth/start`)).body.url as string;
    const start = await open(link);
    expect(start.status, await start.clone().text()).toBe(302);
    const cookies = start.headers.getSetCookie();
    expect(cookies).toEqual([
      expect.stringMatching(
        new RegExp(
          `^portico_oauth=[\\w-]+\\.[\\w-]+; Max-Age=600; Path=/v1/installations/${installation}/public; HttpOnly; SameSite=Lax$`,
        ),
      ),
      expect.stringMatching(
        /^portico_oauth=[\w-]+\.[\w-]+; Max-Age=600; Path=\/v1\/integrations\/gb-oauth\/public; HttpOnly; SameSite=Lax$/,
      ),
    ]);
    const location = new URL(start.headers.get('location') ?? '');
    expect(location.origin).toBe(provider.url);
    expect(location.searchParams.get('redirect_uri')).toBe(`${integrationEndpoint()}/oauth`);

    const callback = await authorizeInBrowser(location, integrationEndpoint());
    expect(callback).toMatch(new RegExp(`^${integrationEndpoint()}/oauth\\?code=`));
    // A browser that did not start the flow is refused: the callback is a button's path.
    const elsewhere = await open(callback);
    expect(elsewhere.status).toBe(403);
    expect((await elsewhere.json()).error).toEqual({
      code: 'oauth_not_started',
      message: expect.stringMatching(/only in the browser that started it from the dashboard.*press Connect/),
    });
    const done = await open(callback, (cookies[1] ?? '').split(';')[0]);
    expect(done.status, await done.clone().text()).toBe(200);
    expect(await done.text()).toMatch(/<h1>Connected<\/h1>/);
    expect(done.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts/);

    const page = (await ada('GET', `/v1/installations/${installation}?view=page`)).body;
    expect(page.status).toBe('active');
    expect(page.configuration.oauth_credentials.access_token).toMatch(/^\S{20,}$/);
    // Recorded as the installation's dispatches: the start and the callback.
    const dispatches = (await ada('GET', `/v1/installations/${installation}/dispatches`)).body as {
      type: string;
      status: number;
    }[];
    expect(dispatches.filter((d) => d.type === 'fetch' && d.status === 200).length).toBeGreaterThanOrEqual(1);
    expect(dispatches.filter((d) => d.type === 'fetch' && d.status === 302).length).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('answers a request carrying no flow with the integration’s environment: no installation, no token', async () => {
    for (const kind of ['public', 'public-content']) {
      const response = await open(`${world.platform.url}/v1/integrations/gb-oauth/${kind}/whoami?x=1`);
      expect(response.status, kind).toBe(200);
      expect(await response.json()).toEqual({
        path: `/v1/integrations/gb-oauth/${kind}/whoami`,
        installation: null,
        token: '',
        urls: {
          publicEndpoint: `${world.platform.url}/v1/integrations/gb-oauth/public`,
          publicContentEndpoint: `${world.platform.url}/v1/integrations/gb-oauth/public-content`,
        },
        signing: 'string',
        bodyLength: 0,
      });
    }
    // A body reaches it whole, up to the public endpoints' limit (over the API's 1 MiB).
    const body = new Uint8Array(2 * 1024 * 1024).fill(97);
    const posted = await fetch(`${integrationEndpoint()}/whoami`, { method: 'POST', body });
    expect(posted.status).toBe(200);
    expect((await posted.json()).bodyLength).toBe(body.length);
  });

  it('uses a flow’s cookie only for its own integration, and refuses a forged callback', async () => {
    // A flow of gb-other's installation, replayed on gb-oauth's endpoint: not gb-oauth's installation.
    const link = (await ada('POST', `/v1/installations/${other}/oauth/start`)).body.url as string;
    const start = await open(link);
    expect(start.status).toBe(302);
    const otherCookie = (start.headers.getSetCookie()[1] ?? '').split(';')[0] as string;
    expect(start.headers.getSetCookie()[1]).toMatch(/Path=\/v1\/integrations\/gb-other\/public;/);
    expect((await open(`${integrationEndpoint()}/oauth?code=x&state=${installation}`, otherCookie)).status).toBe(403);
    // With it, a request off the OAuth path is gb-oauth's own (the integration's environment).
    const whoami = await open(`${integrationEndpoint()}/whoami`, otherCookie);
    expect((await whoami.json()).installation).toBeNull();
    // A cookie that is not the platform's signature is no flow.
    expect((await open(`${integrationEndpoint()}/oauth?code=x&state=y`, 'portico_oauth=forged.value')).status).toBe(
      403,
    );
  });

  it('is only for integrations written for GitBook’s runtime, and says where the others are reached', async () => {
    const native = await ada('POST', '/v1/integrations', {
      manifest: manifest('native-oauth').replace('# Translated by portico from gitbook-manifest.yaml\n', ''),
      script: 'export default { fetch: () => new Response("") }',
    });
    expect(native.status, JSON.stringify(native.body)).toBe(201);
    const refused = await world.anonymous('GET', '/v1/integrations/native-oauth/public/hello');
    expect(refused.status).toBe(404);
    expect(refused.body.error.message).toMatch(
      /only integrations written for GitBook's runtime have one; requests reach native-oauth at each installation's public endpoint/,
    );
    const unknown = await world.anonymous('GET', '/v1/integrations/nobody/public');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toMatch(/nobody/);
  });

  it('answers 503 while the flow’s installation is paused', async () => {
    const link = (await ada('POST', `/v1/installations/${installation}/oauth/start`)).body.url as string;
    const start = await open(link);
    const cookie = (start.headers.getSetCookie()[1] ?? '').split(';')[0] as string;
    expect((await ada('POST', `/v1/installations/${installation}/pause`)).status).toBe(200);
    const paused = await open(`${integrationEndpoint()}/oauth?code=x&state=${installation}`, cookie);
    expect(paused.status).toBe(503);
    expect((await paused.json()).error.code).toBe('installation_paused');
    expect((await ada('POST', `/v1/installations/${installation}/resume`)).status).toBe(200);
  });
});
