/**
 * A GitBook-dialect OAuth connection end to end, on SQLite and PostgreSQL, against a real OAuth 2.0
 * server (oidc-provider): the integration (test-support/gitbook/gb-oauth: `gitbook-manifest.yaml`
 * with a Connect button and secrets, TypeScript) built from its source with the real CLI
 * (`portico publish`, its secrets from the environment), installed with `portico install` (pending
 * until connected), and connected as the dashboard's Connect does: the start link opens the
 * installation's public endpoint, the integration sends the browser to the provider with its ONE
 * integration-wide redirect URL, and the provider's redirect back there reaches it as that
 * installation (the flow's cookie), where it stores the token through `apiEndpoint`. The stored
 * token then works at the provider.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../../platform/src/test-support/backends.js';
import {
  authorizeInBrowser,
  listenOAuthProvider,
  type RunningProvider,
} from '../../../testing/src/test-support/oauth-provider.js';
import { gitbookFixture, portico, serverWorld } from '../test-support/server-world.js';

describe.each(backends)('a GitBook-dialect OAuth connection published and run on $name', (backend) => {
  // The worker reaches the provider on 127.0.0.1.
  const world = serverWorld({ backend });
  let provider: RunningProvider;
  let installation: string;
  const integrationEndpoint = () => `${world.url}/v1/integrations/gb-oauth/public`;

  beforeAll(async () => {
    provider = await listenOAuthProvider();
    const saved = { ...process.env };
    Object.assign(process.env, {
      GB_OAUTH_CLIENT_ID: 'gb-client',
      GB_OAUTH_CLIENT_SECRET: 'gb-secret',
      GB_OAUTH_PROVIDER_URL: provider.url,
    });
    try {
      const published = await portico([
        'publish',
        gitbookFixture('gb-oauth'),
        '--api',
        world.url,
        '--token',
        world.adaToken,
      ]);
      expect(published.stderr).toBe('');
      expect(published.stdout).toMatch(/^Published gb-oauth version 1 /);
    } finally {
      process.env = saved;
    }
    // The provider knows one redirect URL: the integration-wide endpoint's /oauth.
    provider.start([
      { client_id: 'gb-client', client_secret: 'gb-secret', redirect_uris: [`${integrationEndpoint()}/oauth`] },
    ]);
    const installed = await portico([
      'install',
      'gb-oauth',
      '--org',
      'acme',
      '--json',
      '--api',
      world.url,
      '--token',
      world.adaToken,
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    const { organization } = JSON.parse(installed.stdout) as { organization: { id: string; status: string } };
    expect(organization.status).toBe('pending');
    installation = organization.id;
  }, 90_000);
  afterAll(async () => {
    await provider?.close();
  });

  const open = (url: string, cookie?: string) => fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });

  it('connects an account with the one integration-wide redirect URL and stores its token', async () => {
    expect((await world.api('GET', '/v1/integrations/gb-oauth')).gitbook).toMatchObject({ target: 'organization' });
    // Before a flow, its /me says it is not connected.
    const before = await open(`${world.url}/v1/installations/${installation}/public/me`);
    expect(before.status).toBe(409);

    // What the dashboard's Connect does: a start link, opened by the browser.
    const { url: link } = await world.api(
      'POST',
      `/v1/installations/${installation}/oauth/start`,
      {
        property: 'oauth_credentials',
      },
      world.adaToken,
    );
    const start = await open(link);
    expect(start.status, await start.clone().text()).toBe(302);
    const cookie = start.headers
      .getSetCookie()
      .find((c) => c.includes('Path=/v1/integrations/gb-oauth/public;'))
      ?.split(';')[0];
    expect(cookie).toMatch(/^portico_oauth=/);
    const authorize = new URL(start.headers.get('location') ?? '');
    expect(authorize.origin).toBe(provider.url);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${integrationEndpoint()}/oauth`);
    expect(authorize.searchParams.get('state')).toBe(installation);

    const callback = await authorizeInBrowser(authorize, integrationEndpoint());
    expect(callback).toMatch(new RegExp(`^${integrationEndpoint()}/oauth\\?code=`));
    const done = await open(callback, cookie);
    expect(done.status, await done.clone().text()).toBe(200);
    expect(await done.text()).toMatch(/<h1>Your provider account is connected<\/h1>/);

    const stored = await world.api('GET', `/v1/installations/${installation}?view=page`, undefined, world.adaToken);
    expect(stored.status).toBe('active');
    expect(stored.configuration.oauth_credentials).toEqual({ access_token: expect.stringMatching(/^\S{20,}$/) });

    // The stored token is the provider's: the integration reads who it belongs to with it.
    const me = await open(`${world.url}/v1/installations/${installation}/public/me`);
    expect(me.status, await me.clone().text()).toBe(200);
    expect(await me.json()).toEqual({ installation, subject: 'ada' });
  }, 60_000);

  it('refuses the provider’s redirect in a browser that did not start the flow', async () => {
    const refused = await open(`${integrationEndpoint()}/oauth?code=x&state=${installation}`);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe('oauth_not_started');
  });
});
