/**
 * The OAuth flow of `createOAuthHandler`, end to end: the oauth-connect example in the test
 * platform, a real OAuth 2.0 server (oidc-provider) on 127.0.0.1, and a scripted browser.
 */

import { loadManifest, type Manifest } from '@portico/manifest';
import oauthConnect from '@portico-examples/oauth-connect';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestPlatform, type TestPlatform } from './test-platform.js';
import { authorizeInBrowser, listenOAuthProvider, type RunningProvider } from './test-support/oauth-provider.js';

let manifest: Manifest;
const open: { platform: TestPlatform; provider: RunningProvider }[] = [];

beforeAll(async () => {
  const loaded = await loadManifest(new URL('../../../examples/oauth-connect', import.meta.url).pathname);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  manifest = loaded.manifest;
});

beforeEach(() => {
  // oidc-provider announces its development defaults (in-memory adapter, dev keys) on each start.
  for (const method of ['warn', 'info', 'log'] as const) {
    const original = console[method].bind(console);
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].startsWith('oidc-provider ')) return;
      original(...args);
    });
  }
});

afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  for (const { platform, provider } of open.splice(0)) {
    await platform.close();
    await provider.close();
  }
});

async function setUp(options: { clientSecretGiven?: string } = {}) {
  const provider = await listenOAuthProvider();
  const platform = await createTestPlatform(oauthConnect, {
    manifest,
    secrets: {
      CLIENT_ID: 'portico-client',
      CLIENT_SECRET: options.clientSecretGiven ?? 'right-secret',
      PROVIDER_URL: provider.url,
    },
  });
  provider.start([
    { client_id: 'portico-client', client_secret: 'right-secret', redirect_uris: [`${platform.publicEndpoint}/oauth`] },
  ]);
  open.push({ platform, provider });
  return { platform, provider };
}

describe('OAuth against a real OAuth 2.0 server', () => {
  it('connects: the access token lands in the configuration and the installation becomes active', async () => {
    const { platform, provider } = await setUp();
    expect(platform.status).toBe('pending');
    let authorizationUrl: URL | undefined;
    const page = await platform.oauth({
      authorize: (url) => {
        authorizationUrl = url;
        return authorizeInBrowser(url, platform.publicEndpoint);
      },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toMatch(/<h1>Connected<\/h1>/);

    const params = Object.fromEntries(authorizationUrl?.searchParams ?? []);
    expect(authorizationUrl?.origin + (authorizationUrl?.pathname ?? '')).toBe(`${provider.url}/auth`);
    expect(params).toMatchObject({
      response_type: 'code',
      client_id: 'portico-client',
      redirect_uri: `${platform.publicEndpoint}/oauth`,
      scope: 'openid',
      prompt: 'consent',
      code_challenge_method: 'S256',
    });
    expect(params.state).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(params.code_challenge).toMatch(/^[\w-]{43}$/);

    expect(platform.configurationWrites).toEqual([
      {
        oauth_credentials: {
          access_token: expect.stringMatching(/^\S{20,}$/),
          expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      },
    ]);
    expect(platform.status).toBe('active');
    expect(platform.apiRequests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PATCH /v1/installations/inst_test/configuration',
    ]);
  });

  it('shows a readable page, and stores nothing, when the user denies access', async () => {
    const { platform } = await setUp();
    const page = await platform.oauth({
      authorize: (url) => authorizeInBrowser(url, platform.publicEndpoint, { deny: true }),
    });
    expect(page.status).toBe(400);
    const html = await page.text();
    expect(html).toMatch(/The connection was not made/);
    expect(html).toMatch(/access_denied/);
    expect(html).not.toMatch(/at \w+ \(|Error:/);
    expect(platform.configurationWrites).toEqual([]);
  });

  it('refuses a tampered state without exchanging the code', async () => {
    const { platform } = await setUp();
    const page = await platform.oauth({
      async authorize(url) {
        const callback = new URL(await authorizeInBrowser(url, platform.publicEndpoint));
        const state = callback.searchParams.get('state') ?? '';
        const [body, signature = ''] = state.split('.');
        const forged = JSON.parse(Buffer.from(body ?? '', 'base64url').toString());
        forged.e += 3600; // try to extend the expiry
        callback.searchParams.set('state', `${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}`);
        return callback;
      },
    });
    expect(page.status).toBe(400);
    expect(await page.text()).toMatch(/This sign-in link cannot be used.*The sign-in link is not valid/s);
    expect(platform.configurationWrites).toEqual([]);
    expect(platform.outboundRequests.filter((r) => r.url.endsWith('/token'))).toEqual([]);
  });

  it('refuses an expired state', async () => {
    const { platform } = await setUp();
    const page = await platform.oauth({
      async authorize(url) {
        const callback = await authorizeInBrowser(url, platform.publicEndpoint);
        vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 11 * 60 * 1000 });
        return callback;
      },
    });
    expect(page.status).toBe(400);
    expect(await page.text()).toMatch(/The sign-in link has expired/);
    expect(platform.configurationWrites).toEqual([]);
  });

  it('shows the provider refusal, and stores nothing, when the token exchange fails', async () => {
    const { platform } = await setUp({ clientSecretGiven: 'wrong-secret' });
    const page = await platform.oauth({ authorize: (url) => authorizeInBrowser(url, platform.publicEndpoint) });
    expect(page.status).toBe(502);
    expect(await page.text()).toMatch(/The provider did not issue an access token: invalid_client/);
    expect(platform.configurationWrites).toEqual([]);
    const exchange = platform.outboundRequests.find((r) => r.url.endsWith('/token'));
    expect(Object.fromEntries(new URLSearchParams(exchange?.body))).toMatchObject({
      grant_type: 'authorization_code',
      client_id: 'portico-client',
      redirect_uri: `${platform.publicEndpoint}/oauth`,
      code_verifier: expect.stringMatching(/^[\w-]{43}$/),
    });
  });

  it('shows a readable page when the integration lacks its OAuth secrets', async () => {
    const provider = await listenOAuthProvider();
    const platform = await createTestPlatform(oauthConnect, { manifest });
    open.push({ platform, provider });
    const page = await platform.fetch('/oauth');
    expect(page.status).toBe(500);
    expect(await page.text()).toMatch(/lack clientId, clientSecret/);
  });
});
