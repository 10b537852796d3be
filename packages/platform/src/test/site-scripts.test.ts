/**
 * Site scripts on the real server, on SQLite and PostgreSQL: a worker written for these tests the
 * way that runtime answers (run in workerd) publishes, for the site it is installed in, a script
 * built from `siteInstallation.configuration`, as the analytics and chat integrations do. The site's
 * admins list the scripts; anyone loads one, as JavaScript with an ETag, kept until the
 * configuration or the version changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../test-support/backends.js';
import { startWorld, type World } from '../test-support/world.js';

/** Answers `fetch_published_script` with a script that names its site's tracking id; 406 to the rest. */
const WORKER = (tag: string) => `export default { async fetch(request) {
  if (request.method === 'GET') return new Response('no such route', { status: 500 });
  const form = await request.formData();
  const event = JSON.parse(form.get('event'));
  const environment = JSON.parse(form.get('environment'));
  if (event.type !== 'fetch_published_script') return Response.json({ error: 'not handled' }, { status: 406 });
  const id = environment.siteInstallation.configuration.trackingId;
  const script = 'window.analytics = ' + JSON.stringify({ id, site: event.siteId, tag: ${JSON.stringify(tag)} }) + ';';
  return new Response(script, { headers: { 'content-type': 'application/javascript' } });
} };`;

const manifest = (name: string, scopes: string) => `# Translated by portico from gitbook-manifest.yaml
name: ${name}
title: ${name}
description: Publishes a script into the sites it is installed in
organization: acme
visibility: private
scopes: [${scopes}]
configurations:
  site:
    properties:
      trackingId:
        type: string
`;
const facts = {
  target: 'site',
  contentSecurityPolicy: {
    'script-src': 'https://analytics.example.com',
    'connect-src': 'https://analytics.example.com',
  },
  configurationComponents: {},
  blocks: {},
};

describe.each(backends)('site scripts on $name', (backend) => {
  let world: World;
  let ada: World['admin'];
  let org: string;
  let site: string;
  let unscoped: string;

  const scriptDispatches = async () =>
    ((await ada('GET', `/v1/installations/${site}/dispatches`)).body as { type: string; status: number }[]).filter(
      (d) => d.type === 'fetch_published_script',
    );

  beforeAll(async () => {
    world = await startWorld(backend);
    ada = world.as(world.tokens.ada);
    // The scope is internal: published with the operator's token.
    const published = await world.admin('POST', '/v1/integrations', {
      manifest: manifest('gb-analytics', 'site:script:inject'),
      script: WORKER('v1'),
      gitbook: facts,
    });
    if (published.status !== 201) throw new Error(JSON.stringify(published.body));
    const plain = await ada('POST', '/v1/integrations', {
      manifest: manifest('gb-plain', ''),
      script: WORKER('plain'),
      gitbook: facts,
    });
    if (plain.status !== 201) throw new Error(JSON.stringify(plain.body));
    org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'gb-analytics' })).body.id;
    const installed = await ada('POST', `/v1/installations/${org}/sites/acme-site`);
    if (installed.status !== 201) throw new Error(JSON.stringify(installed.body));
    site = installed.body.id;
    await ada('PATCH', `/v1/installations/${site}/configuration`, { trackingId: 'UA-1' });
    const plainOrg = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'gb-plain' })).body.id;
    unscoped = (await ada('POST', `/v1/installations/${plainOrg}/sites/acme-site`)).body.id;
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });

  it('refuses the internal scope to a publisher the operator has not marked internal', async () => {
    const refused = await ada('POST', '/v1/integrations', {
      manifest: manifest('gb-sneaky', 'site:script:inject'),
      script: WORKER('x'),
      gitbook: facts,
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body.error)).toMatch(/site:script:inject.*internal/);
  });

  it('lists the site’s scripts, with the policy they need, for its admins and the operator', async () => {
    const expected = [
      {
        installationId: site,
        integration: 'gb-analytics',
        url: `${world.platform.url}/v1/installations/${site}/published-script`,
        contentSecurityPolicy: facts.contentSecurityPolicy,
      },
    ];
    const listed = await ada('GET', '/v1/sites/acme-site/scripts');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body).toEqual(expected);
    expect((await world.admin('GET', '/v1/sites/acme-site/scripts')).body).toEqual(expected);
  });

  it('refuses the list to a member, another organization and no token, and names an unknown site', async () => {
    const member = await world.as(world.tokens.bob)('GET', '/v1/sites/acme-site/scripts');
    expect(member.status).toBe(403);
    expect(member.body.error.message).toMatch(/only admins of the organization acme/);
    expect((await world.as(world.tokens.carol)('GET', '/v1/sites/acme-site/scripts')).status).toBe(403);
    expect((await world.anonymous('GET', '/v1/sites/acme-site/scripts')).status).toBe(401);
    const unknown = await ada('GET', '/v1/sites/nowhere/scripts');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('the site nowhere does not exist');
  });

  it('serves the script as JavaScript with an ETag, 304 for the current one, kept until the configuration changes', async () => {
    const url = `${world.platform.url}/v1/installations/${site}/published-script`;
    const first = await fetch(url);
    expect(first.status, await first.clone().text()).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(await first.text()).toBe('window.analytics = {"id":"UA-1","site":"acme-site","tag":"v1"};');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[\w-]{27}"$/);

    const again = await fetch(url, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    const kept = await fetch(url, { headers: { 'if-none-match': '"something-else"' } });
    expect(kept.status).toBe(200);
    expect(await kept.text()).toMatch(/"UA-1"/);
    // One call of the integration so far: the 304 and the kept copy asked it nothing.
    expect(await scriptDispatches()).toEqual([expect.objectContaining({ status: 200 })]);

    await ada('PATCH', `/v1/installations/${site}/configuration`, { trackingId: 'UA-2' });
    const changed = await fetch(url, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(await changed.text()).toMatch(/"id":"UA-2"/);
    expect(await scriptDispatches()).toHaveLength(2);

    // A new version is a new script.
    const republished = await world.admin('POST', '/v1/integrations', {
      manifest: manifest('gb-analytics', 'site:script:inject'),
      script: WORKER('v2'),
      gitbook: facts,
    });
    expect(republished.status, JSON.stringify(republished.body)).toBe(201);
    const newer = await fetch(url, { headers: { 'if-none-match': changed.headers.get('etag') ?? '' } });
    expect(newer.status).toBe(200);
    expect(await newer.text()).toMatch(/"tag":"v2"/);
  }, 60_000);

  it('refuses an installation without the scope, or not in a site, with what to do', async () => {
    const noScope = await world.anonymous('GET', `/v1/installations/${unscoped}/published-script`);
    expect(noScope.status).toBe(400);
    expect(noScope.body.error).toEqual({
      code: 'no_script_scope',
      message:
        "gb-plain publishes no site script: its manifest does not ask for the scope `site:script:inject` (internal: add it to the manifest and publish with the operator's token)",
    });
    const organization = await world.anonymous('GET', `/v1/installations/${org}/published-script`);
    expect(organization.status).toBe(400);
    expect(organization.body.error.code).toBe('not_a_site_installation');
    expect(organization.body.error.message).toMatch(/GET \/v1\/sites\/\{site\}\/scripts lists them/);
    expect((await world.anonymous('GET', '/v1/installations/inst_nope/published-script')).status).toBe(404);
  });

  it('serves no script while the installation is paused, and lists none', async () => {
    expect((await ada('POST', `/v1/installations/${org}/pause`)).status).toBe(200);
    try {
      const paused = await world.anonymous('GET', `/v1/installations/${site}/published-script`);
      expect(paused.status).toBe(503);
      expect(paused.body.error.code).toBe('installation_not_active');
      expect((await ada('GET', '/v1/sites/acme-site/scripts')).body).toEqual([]);
    } finally {
      await ada('POST', `/v1/installations/${org}/resume`);
    }
  });
});
