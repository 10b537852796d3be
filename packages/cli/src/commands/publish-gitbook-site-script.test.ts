/**
 * A GitBook-dialect site script end to end, on SQLite and PostgreSQL: a chat widget
 * (test-support/gitbook/gb-widget: `gitbook-manifest.yaml` with `site:script:inject` and a
 * `contentSecurityPolicy`, its script a `.raw.js` file imported as text) built from its source with
 * the real CLI (`portico publish`, with the operator's token: the scope is internal), installed in a
 * site with `portico install`, configured with `portico configure`, and asked for its script through
 * the site scripts routes: listed for the site's admins, served to anyone as JavaScript with an
 * ETag, and asked of the integration again when the configuration changes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../../platform/src/test-support/backends.js';
import { gitbookFixture, portico, serverWorld } from '../test-support/server-world.js';

/** The widget's `.raw.js` text as the integration fills it in: each value a JSON string. */
const script = (room: string) => `(() => {
  window.widgetSettings = { room: ${JSON.stringify(room)}, site: "site", mode: "production" };
})();
`;

describe.each(backends)('a GitBook-dialect site script published and run on $name', (backend) => {
  const world = serverWorld({ backend, allowPrivateNetwork: false });
  let site: string;
  const scriptUrl = () => `${world.url}/v1/installations/${site}/published-script`;
  const scriptCalls = async () =>
    ((await world.api('GET', `/v1/installations/${site}/dispatches`)) as { type: string; status: number }[]).filter(
      (dispatch) => dispatch.type === 'fetch_published_script',
    );

  beforeAll(async () => {
    // With a member's token the internal scope is refused, and nothing is published.
    const refused = await portico([
      'publish',
      gitbookFixture('gb-widget'),
      '--api',
      world.url,
      '--token',
      world.adaToken,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^gitbook-manifest\.yaml:12:5: the scope "site:script:inject" is internal to the platform.*\nportico publish: the platform refused it \(400\): /,
    );
    await expect(world.api('GET', '/v1/integrations/gb-widget')).rejects.toThrow(/: 404 /);
    const published = await portico([
      'publish',
      gitbookFixture('gb-widget'),
      '--api',
      world.url,
      '--token',
      world.adminToken,
    ]);
    expect(published.stderr).toBe('');
    expect(published.stdout).toMatch(/^Published gb-widget version 1 /);

    const as = ['--api', world.url, '--token', world.adaToken];
    const installed = await portico(['install', 'gb-widget', '--org', 'acme', '--site', 'site', '--json', ...as]);
    expect(installed.code, installed.stderr).toBe(0);
    const sites = (JSON.parse(installed.stdout) as { sites: { id: string; status: string }[] }).sites;
    site = sites[0]?.id ?? '';
    // Pending until its required chat room is set.
    expect(sites).toEqual([expect.objectContaining({ status: 'pending', target: { type: 'site', id: 'site' } })]);
    const configured = await portico(['configure', site, 'room=lobby', ...as]);
    expect(configured.code, configured.stderr).toBe(0);
  }, 90_000);

  it('is published with its site script facts', async () => {
    const integration = await world.api('GET', '/v1/integrations/gb-widget');
    expect(integration.scopes).toEqual(['site:script:inject']);
    expect(integration.gitbook).toMatchObject({
      target: 'site',
      contentSecurityPolicy: {
        'script-src': 'https://widget.example.com',
        'connect-src': 'https://widget.example.com wss://widget.example.com',
      },
    });
  });

  it('lists the site’s script, with the policy it needs, for the site’s admins', async () => {
    const listed = await world.api('GET', '/v1/sites/site/scripts', undefined, world.adaToken);
    expect(listed).toEqual([
      {
        installationId: site,
        integration: 'gb-widget',
        url: scriptUrl(),
        contentSecurityPolicy: {
          'script-src': 'https://widget.example.com',
          'connect-src': 'https://widget.example.com wss://widget.example.com',
        },
      },
    ]);
  });

  it('serves its .raw.js widget filled in with the configuration, cached until the configuration changes', async () => {
    const first = await fetch(scriptUrl());
    expect(first.status, await first.clone().text()).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(await first.text()).toBe(script('lobby'));
    const etag = first.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    const again = await fetch(scriptUrl(), { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await scriptCalls()).toEqual([expect.objectContaining({ status: 200 })]);

    const as = ['--api', world.url, '--token', world.adaToken];
    // A quote in the value stays inside the script's string.
    const configured = await portico(['configure', site, 'room=the "quiet" room', ...as]);
    expect(configured.code, configured.stderr).toBe(0);
    const changed = await fetch(scriptUrl(), { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(await changed.text()).toBe(script('the "quiet" room'));
    expect(await scriptCalls()).toHaveLength(2);
  }, 60_000);
});
