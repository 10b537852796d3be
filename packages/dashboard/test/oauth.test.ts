/**
 * OAuth Connect in Chromium against a real OAuth 2.0 server (oidc-provider, the provider of the
 * SDK's tests): the button property's Connect starts the flow from the signed-in session, the
 * person signs in and consents at the provider, and the installation page shows "connected".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOAuthProvider, type RunningProvider } from '../../testing/src/test-support/oauth-provider.js';
import { screenshot, signInAtProvider } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

let world: DashboardWorld;
let provider: RunningProvider;

beforeAll(async () => {
  provider = await listenOAuthProvider();
  world = await startDashboardWorld();
  await world.publish('oauth-connect', {
    OAUTH_CLIENT_ID: 'portico',
    OAUTH_CLIENT_SECRET: 'oauth-secret',
    OAUTH_PROVIDER_URL: provider.url,
  });
}, 120_000);

afterAll(async () => {
  await world?.close();
  await provider?.close();
});

// Browser steps wait up to 30 s each on a busy machine; a whole test gets 2 minutes.
describe('OAuth Connect', { timeout: 120_000 }, () => {
  it('connects an account at the provider from the Connect button and shows it connected', async () => {
    const page = await world.page();
    await signIn(page, world.url, world.tokens.ada);
    await page.goto(`${world.url}/integrations/oauth-connect`);
    await page.getByRole('button', { name: 'Install' }).click();
    // The confirmation lists what it is granted; its Install installs.
    await page.getByRole('alertdialog').getByRole('button', { name: 'Install' }).click();
    await page.waitForURL(/\/installations\/[^/]+$/);
    await page.getByRole('heading', { level: 1, name: 'OAuth Connect' }).waitFor();
    const id = page.url().split('/').pop() as string;
    provider.start([
      {
        client_id: 'portico',
        client_secret: 'oauth-secret',
        redirect_uris: [`${world.url}/v1/installations/${id}/public/oauth`],
      },
    ]);
    await page.getByText('pending', { exact: true }).waitFor();
    const account = page.getByRole('group', { name: 'Account' });
    await account.getByText('not connected').waitFor();
    await screenshot(page, 'oauth-connect');

    // The public OAuth path refuses a flow that the dashboard did not start.
    const direct = await fetch(`${world.url}/v1/installations/${id}/public/oauth`, { redirect: 'manual' });
    expect(direct.status).toBe(403);

    // Connect opens a popup (issue 41): the dashboard stays where it is.
    const opened = page.waitForEvent('popup');
    await account.getByRole('button', { name: 'Connect' }).click();
    const popup = await opened;
    // The provider's development sign-in and consent pages.
    await signInAtProvider(popup, provider.url);
    await popup.waitForURL((url) => url.href.startsWith(`${world.url}/v1/installations/${id}/public/oauth`));
    await popup.getByRole('heading').first().waitFor();
    expect(page.url()).toBe(`${world.url}/installations/${id}`);
    await popup.close();
    // The dashboard shows it connected by itself, without a reload.
    await page.getByRole('group', { name: 'Account' }).getByText('connected', { exact: true }).waitFor();
    await page.getByText('active', { exact: true }).waitFor();
    const stored = await world.admin('GET', `/v1/installations/${id}`);
    expect(stored.body.configuration.oauth_credentials).toMatchObject({ access_token: expect.any(String) });
  });
});
