/**
 * OAuth Connect of a GitBook-dialect integration in Chromium, on SQLite and PostgreSQL, against a
 * real OAuth 2.0 server (oidc-provider): the integration (cli's test-support/gitbook/gb-oauth,
 * `gitbook-manifest.yaml` with a Connect button, written for these tests; it does not use
 * `@gitbook/runtime`) is published from its source with the real CLI, installed from its page, and
 * connected by a person pressing Connect: the provider, which knows only the integration-wide
 * redirect URL, sends the browser back there, the integration stores the token through
 * `apiEndpoint`, and the installation page shows the account connected and the installation
 * active. Axe finds no WCAG A/AA problem before and after.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../platform/src/test-support/backends.js';
import { listenOAuthProvider, type RunningProvider } from '../../testing/src/test-support/oauth-provider.js';
import { axeViolations } from './support/axe.js';
import { screenshot, signInAtProvider } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

const fixture = new URL('../../cli/src/test-support/gitbook/gb-oauth', import.meta.url).pathname;

describe.each(backends)('OAuth Connect of a GitBook-dialect integration on $name', (backend) => {
  let world: DashboardWorld;
  let provider: RunningProvider;

  beforeAll(async () => {
    provider = await listenOAuthProvider();
    world = await startDashboardWorld({ backend });
    await world.publish(fixture, {
      GB_OAUTH_CLIENT_ID: 'gb-client',
      GB_OAUTH_CLIENT_SECRET: 'gb-secret',
      GB_OAUTH_PROVIDER_URL: provider.url,
    });
    // The one redirect URL the integration registers: its integration-wide endpoint's /oauth.
    provider.start([
      {
        client_id: 'gb-client',
        client_secret: 'gb-secret',
        redirect_uris: [`${world.url}/v1/integrations/gb-oauth/public/oauth`],
      },
    ]);
  }, 120_000);

  afterAll(async () => {
    await world?.close();
    await provider?.close();
  });

  /** Screenshots are saved once (from the SQLite run): the screens are the same on both back ends. */
  const save = (page: Page, name: string) => (backend.name === 'sqlite' ? screenshot(page, name) : undefined);

  // Browser steps wait up to 30 s each on a busy machine; a whole test gets 3 minutes.
  it('installs it, connects an account at the provider from Connect, and shows it connected', {
    timeout: 180_000,
  }, async () => {
    const page = await world.page({ bypassCSP: true });
    // The network stays on 127.0.0.1: the web font the provider's development pages import is answered empty here.
    await page.context().route(
      (url) => url.hostname !== '127.0.0.1',
      (route) => route.fulfill({ status: 200, contentType: 'text/css', body: '' }),
    );
    await signIn(page, world.url, world.tokens.ada);
    await page.goto(`${world.url}/integrations/gb-oauth`);
    await page.getByRole('button', { name: 'Install' }).click();
    // The confirmation lists what it is granted; its Install installs.
    await page.getByRole('alertdialog').getByRole('button', { name: 'Install' }).click();
    // The integration's page has the same title: wait for the installation's own page.
    await page.waitForURL((url) => /\/installations\/inst_\w+$/.test(url.pathname));
    await page.getByRole('heading', { level: 1, name: 'Provider Account' }).waitFor();
    const id = page.url().split('/').pop() as string;
    await page.getByText('pending', { exact: true }).waitFor();
    const account = page.getByRole('group', { name: 'Provider account' });
    await account.getByText('not connected').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await save(page, 'gitbook-oauth-connect');

    // Connect opens a popup (issue 41): the dashboard stays where it is.
    const opened = page.waitForEvent('popup');
    await account.getByRole('button', { name: 'Connect' }).click();
    const popup = await opened;
    // The provider's development sign-in and consent pages; the request names the integration-wide redirect.
    await signInAtProvider(popup, provider.url);
    await popup.waitForURL((url) => url.href.startsWith(`${world.url}/v1/integrations/gb-oauth/public/oauth?code=`));
    await popup.getByRole('heading', { name: 'Your provider account is connected' }).waitFor();
    expect(page.url()).toBe(`${world.url}/installations/${id}`);
    await popup.close();
    await page.getByRole('group', { name: 'Provider account' }).getByText('connected', { exact: true }).waitFor();
    await page.getByText('active', { exact: true }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await save(page, 'gitbook-oauth-connected');
    const stored = await world.admin('GET', `/v1/installations/${id}`);
    expect(stored.body.configuration.oauth_credentials).toEqual({ access_token: expect.stringMatching(/^\S{20,}$/) });
    // The token is the provider's: the integration reads who it belongs to with it.
    const me = await fetch(`${world.url}/v1/installations/${id}/public/me`);
    expect(await me.json()).toEqual({ installation: id, subject: 'ada' });
    await page.context().close();
  });
});
