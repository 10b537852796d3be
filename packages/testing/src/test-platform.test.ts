/** The harness itself: environments, recording, API authorization. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createIntegration, type Environment } from '@portico/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestPlatform, type TestPlatform } from './test-platform.js';

const platforms: TestPlatform[] = [];
afterEach(async () => {
  await Promise.all(platforms.splice(0).map((p) => p.close()));
});

async function platformFor(...args: Parameters<typeof createTestPlatform>) {
  const platform = await createTestPlatform(...args);
  platforms.push(platform);
  return platform;
}

describe('createTestPlatform', () => {
  it('sends each target the environment of spec 2.6', async () => {
    const seen: Environment[] = [];
    const integration = createIntegration({ events: { space_view: (_e, c) => void seen.push(c.environment) } });
    for (const target of ['organization', 'space', 'site'] as const) {
      const platform = await platformFor(integration, { target, secrets: { TOKEN: 't' }, configuration: { a: 1 } });
      await platform.event({ type: 'space_view', spaceId: 's' });
    }
    expect(seen.map((e) => e.target)).toEqual(['organization', 'space', 'site']);
    for (const environment of seen) {
      expect(environment).toMatchObject({
        apiEndpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        apiTokens: { installation: expect.any(String) },
        integration: { urls: { publicEndpoint: expect.stringMatching(/\/v1\/installations\/inst_test\/public$/) } },
        id: 'inst_test',
        status: 'pending',
        configuration: { a: 1 },
        secrets: { TOKEN: 't' },
        installationKey: expect.any(String),
        externalIds: [],
      });
    }
    expect(seen[0]).toMatchObject({ space_selection: { mode: 'selected', spaces: [] } });
    expect(seen[1]).toMatchObject({
      space: 'space_test',
      parentInstallationId: 'inst_parent',
      installation: {
        id: 'inst_parent',
        configuration: {},
        space_selection: { mode: 'selected', spaces: ['space_test'] },
      },
    });
    expect(seen[2]).toMatchObject({ site: 'site_test' });
  });

  it('records the outbound requests of integration code, and only those', async () => {
    const external = createServer((_req, res) => res.end('pong'));
    await new Promise<void>((resolve) => external.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(external.address() as AddressInfo).port}/ping`;
    try {
      const integration = createIntegration({
        events: {
          space_content_updated: async (event, context) => {
            await fetch(url, { method: 'POST', body: JSON.stringify({ revision: event.revisionId }) });
            context.waitUntil(fetch(`${url}?later=1`).then((r) => r.text()));
            await context.api.getInstallation();
          },
        },
      });
      const platform = await platformFor(integration);
      await fetch(url); // the test's own request: not recorded
      const response = await platform.event({ type: 'space_content_updated', spaceId: 's', revisionId: 'r9' });
      expect(response.status).toBe(204);
      await platform.settled();
      expect(platform.outboundRequests.map((r) => [r.method, r.url, r.body])).toEqual([
        ['POST', url, '{"revision":"r9"}'],
        ['GET', `${url}?later=1`, ''],
      ]);
      expect(platform.apiRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/installations/inst_test']);
    } finally {
      await new Promise<void>((resolve) => external.close(() => resolve()));
    }
  });

  it('serves the API only to the installation token', async () => {
    const platform = await platformFor(createIntegration());
    const url = `${platform.apiUrl}/v1/installations/inst_test`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const ok = await fetch(url, { headers: { authorization: `Bearer ${platform.token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ id: 'inst_test', status: 'active', target: { type: 'organization' } });
    const other = await fetch(`${platform.apiUrl}/v1/installations/inst_other`, {
      headers: { authorization: `Bearer ${platform.token}` },
    });
    expect(other.status).toBe(403);
  });

  it('merges configuration writes, removes null properties and reports validation errors', async () => {
    const integration = createIntegration({
      events: {
        installation_setup: async (_e, context) => {
          const first = await context.api.updateConfiguration({ count: 'three' });
          context.waitUntil(Promise.resolve(first));
        },
      },
    });
    const platform = await platformFor(integration, {
      manifest: {
        name: 'x',
        title: 'X',
        description: 'x',
        organization: 'o',
        visibility: 'private',
        scopes: [],
        configurations: {
          account: { properties: { count: { type: 'number' }, note: { type: 'string' } }, required: ['count'] },
        },
      },
      configuration: { note: 'keep me' },
    });
    await platform.event({ type: 'installation_setup', status: 'pending' });
    expect(platform.configuration).toEqual({ note: 'keep me', count: 'three' });
    expect(platform.status).toBe('pending');
    const response = await fetch(`${platform.apiUrl}/v1/installations/inst_test/configuration`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${platform.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ count: 3, note: null }),
    });
    expect(await response.json()).toEqual({ status: 'active', configuration: { count: 3 }, errors: [] });
  });
});
