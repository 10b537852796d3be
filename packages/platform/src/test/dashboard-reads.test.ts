/**
 * What the dashboard reads, on the real server, on SQLite and PostgreSQL: organizations, spaces
 * and sites with their installations, the integration directory with its visibility rules, the
 * integration page with its files and components, and the page view of an installation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentToken } from '../installations/tokens.js';
import { backends } from '../test-support/backends.js';
import { startWorld, type World } from '../test-support/world.js';

/** A PNG's signature and header: enough for the platform to know it is a PNG. */
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('0000000d49484452000000010000000108060000001f15c489', 'hex'),
]);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

/** A script that answers every request with a descriptor naming two components (as GET /v1 would). */
const SCRIPT = `export default { async fetch() {
  return Response.json({ runtime: 'portico', versions: ['v1'], fetch: true, events: [], components: ['counter', 'settings'] });
} };`;

function pageManifest(name: string, organization: string, visibility: string, extra = '') {
  return `name: ${name}
title: ${name} title
description: ${name} description
summary: "# Hello\\n\\nIt does **things**."
organization: ${organization}
visibility: ${visibility}
scopes: [space:content:read, site:views:read]
categories: [analytics]
externalLinks:
  - label: Docs
    url: https://example.com/docs
blocks:
  - id: counter
    title: Counter
    description: Counts presses.
configurations:
  account:
    properties:
      url:
        type: string
        title: Endpoint URL
        description: Where to send things.
      region:
        type: string
        enum: [eu, us]
        default: eu
      project:
        type: string
        completion_url: /projects
      account:
        type: button
        button_text: Connect
        callback_url: /oauth
    required: [url]
  site:
    properties:
      enabled:
        type: boolean
        default: true
${extra}`;
}

describe.each(backends)('what the dashboard reads, on $name', (backend) => {
  let world: World;
  let ada: World['admin'];
  let bob: World['admin'];
  let carol: World['admin'];
  let dave: World['admin'];
  let globexUnlistedShare: string;
  let org: string;
  let space: string;
  beforeAll(async () => {
    world = await startWorld(backend);
    ada = world.as(world.tokens.ada);
    bob = world.as(world.tokens.bob);
    carol = world.as(world.tokens.carol);
    dave = world.as(world.tokens.dave);
    const publish = async (as: World['admin'], body: object) => {
      const answer = await as('POST', '/v1/integrations', { script: SCRIPT, ...body });
      if (answer.status !== 201) throw new Error(`publish: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body;
    };
    await publish(ada, {
      manifest: pageManifest('acme-page', 'acme', 'private', 'icon: icon.png\npreviewImages: [shots/one.png]\n'),
      assets: { 'icon.png': PNG.toString('base64'), 'shots/one.png': PNG.toString('base64') },
    });
    await publish(ada, { manifest: pageManifest('acme-public', 'acme', 'public') });
    await publish(carol, { manifest: pageManifest('globex-private', 'globex', 'private') });
    globexUnlistedShare = (
      await publish(carol, {
        manifest: pageManifest('globex-unlisted', 'globex', 'unlisted', 'icon: i.svg\n'),
        assets: { 'i.svg': SVG.toString('base64') },
      })
    ).shareToken;
    org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'acme-page' })).body.id;
    space = (await ada('POST', `/v1/installations/${org}/spaces/acme-space`)).body.id;
  }, 60_000);
  afterAll(() => world?.close());

  describe('organizations', () => {
    it('lists the organizations each person belongs to, with their role; the operator sees all', async () => {
      expect((await ada('GET', '/v1/orgs')).body).toEqual([{ id: 'acme', title: 'Acme', role: 'admin' }]);
      expect((await bob('GET', '/v1/orgs')).body).toEqual([{ id: 'acme', title: 'Acme', role: 'member' }]);
      expect((await dave('GET', '/v1/orgs')).body).toEqual([]);
      const all = (await world.admin('GET', '/v1/orgs')).body;
      expect(all).toEqual(
        expect.arrayContaining([
          { id: 'acme', title: 'Acme', role: 'admin' },
          { id: 'globex', title: 'Globex', role: 'admin' },
        ]),
      );
      const token = await currentToken(world.platform.ctx, org);
      expect((await world.as(token)('GET', '/v1/orgs')).status).toBe(403);
      expect((await world.anonymous('GET', '/v1/orgs')).status).toBe(401);
    });

    it('shows an organization with its spaces, sites, members and installations to its members only', async () => {
      const { status, body } = await bob('GET', '/v1/orgs/acme');
      expect(status).toBe(200);
      expect(body).toMatchObject({
        id: 'acme',
        title: 'Acme',
        role: 'member',
        spaces: [{ id: 'acme-space', title: 'Acme docs' }],
        sites: [{ id: 'acme-site', title: 'Acme site' }],
        members: [
          { id: 'ada', name: 'ada', role: 'admin' },
          { id: 'bob', name: 'bob', role: 'member' },
        ],
      });
      expect(body.installations).toHaveLength(1);
      expect(body.installations[0]).toMatchObject({
        id: org,
        integration: 'acme-page',
        integrationTitle: 'acme-page title',
        status: 'pending',
        children: [{ id: space, target: { type: 'space', id: 'acme-space' }, status: 'active' }],
      });
      const refused = await carol('GET', '/v1/orgs/acme');
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toMatch(/not a member of the organization acme/);
      expect((await world.admin('GET', '/v1/orgs/acme')).body.role).toBe('admin');
      expect((await ada('GET', '/v1/orgs/nowhere')).status).toBe(404);
      expect((await ada('GET', '/v1/orgs/not%20an%20id')).body.error.code).toBe('invalid_request');
    });

    it('shows a space with its installations and, while active, their blocks; a site likewise', async () => {
      const { body } = await bob('GET', '/v1/spaces/acme-space');
      expect(body).toMatchObject({ id: 'acme-space', title: 'Acme docs', organization: 'acme' });
      expect(body.installations.map((i: { id: string }) => i.id)).toEqual([space]);
      expect(body.installations[0]).toMatchObject({
        status: 'active',
        blocks: [{ id: 'counter', title: 'Counter', description: 'Counts presses.' }],
      });
      await ada('POST', `/v1/installations/${space}/pause`);
      const paused = (await bob('GET', '/v1/spaces/acme-space')).body.installations[0];
      expect(paused).toMatchObject({ status: 'paused', blocks: [] });
      await ada('POST', `/v1/installations/${space}/resume`);
      expect((await bob('GET', '/v1/sites/acme-site')).body).toEqual({
        id: 'acme-site',
        title: 'Acme site',
        organization: 'acme',
        installations: [],
      });
      expect((await carol('GET', '/v1/spaces/acme-space')).status).toBe(403);
      expect((await carol('GET', '/v1/spaces/nowhere')).status).toBe(404);
    });
  });

  describe('the directory', () => {
    const names = (body: { name: string }[]) => body.map((i) => i.name);

    it('lists what each person may install: public ones, those of their organizations, unlisted ones only by share link', async () => {
      const forBob = (await bob('GET', '/v1/integrations')).body;
      expect(names(forBob)).toEqual(['acme-page', 'acme-public', 'webhook']);
      expect(forBob[0]).toEqual({
        name: 'acme-page',
        title: 'acme-page title',
        description: 'acme-page description',
        icon: expect.stringMatching(/^\/v1\/integrations\/acme-page\/assets\/icon\?v=1$/),
        organization: 'acme',
        visibility: 'private',
        categories: ['analytics'],
      });
      expect(names((await carol('GET', '/v1/integrations')).body)).toEqual([
        'acme-public',
        'globex-private',
        'globex-unlisted',
        'webhook',
      ]);
      const shared = (await bob('GET', `/v1/integrations?share=${globexUnlistedShare}`)).body;
      expect(names(shared)).toEqual(['acme-page', 'acme-public', 'globex-unlisted', 'webhook']);
      expect(shared[2].icon).toBe(`/v1/integrations/globex-unlisted/assets/icon?v=1&share=${globexUnlistedShare}`);
      expect(names((await bob('GET', '/v1/integrations?share=wrong')).body)).not.toContain('globex-unlisted');
      expect(names((await world.admin('GET', '/v1/integrations')).body)).toEqual([
        'acme-page',
        'acme-public',
        'globex-private',
        'globex-unlisted',
        'webhook',
      ]);
    });

    it('answers the integration page: summary, files, scopes with what they grant, schemas, components', async () => {
      const { status, body } = await bob('GET', '/v1/integrations/acme-page');
      expect(status).toBe(200);
      expect(body).toMatchObject({
        name: 'acme-page',
        title: 'acme-page title',
        description: 'acme-page description',
        organization: 'acme',
        organizationTitle: 'Acme',
        summary: '# Hello\n\nIt does **things**.',
        icon: '/v1/integrations/acme-page/assets/icon?v=1',
        previewImages: ['/v1/integrations/acme-page/assets/preview-0?v=1'],
        categories: ['analytics'],
        externalLinks: [{ label: 'Docs', url: 'https://example.com/docs' }],
        scopes: ['space:content:read', 'site:views:read'],
        scopeGrants: [
          { scope: 'space:content:read', grants: 'Read the content of your spaces' },
          { scope: 'site:views:read', grants: 'Read the analytics of your sites (page views and feedback)' },
        ],
        components: [
          { id: 'counter', title: 'Counter', description: 'Counts presses.', block: true },
          { id: 'settings', title: 'settings', block: false },
        ],
        shareToken: expect.any(String),
      });
      expect(body.configurationSchemas.account).toMatchObject({
        type: 'object',
        required: ['url'],
        additionalProperties: false,
        properties: { url: { type: 'string', title: 'Endpoint URL' }, region: { enum: ['eu', 'us'] } },
      });
      expect(body.configurationSchemas.site.properties.enabled).toEqual({ type: 'boolean', default: true });
      // Another organization sees neither the page nor its files.
      expect((await carol('GET', '/v1/integrations/acme-page')).status).toBe(404);
      expect((await carol('GET', '/v1/integrations/acme-page/assets/icon')).status).toBe(404);
      // An unlisted one's page opens with its share token (either name of the parameter), without its token.
      const unlisted = await bob('GET', `/v1/integrations/globex-unlisted?share=${globexUnlistedShare}`);
      expect(unlisted.status).toBe(200);
      expect(unlisted.body.shareToken).toBeUndefined();
      expect((await bob('GET', '/v1/integrations/globex-unlisted')).status).toBe(404);
    });

    it('serves the published files, byte for byte, as images that run nothing', async () => {
      const response = await fetch(`${world.platform.url}/v1/integrations/acme-page/assets/icon?v=1`, {
        headers: { authorization: `Bearer ${world.tokens.bob}` },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(response.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await response.arrayBuffer())).toEqual(PNG);
      const svg = await fetch(
        `${world.platform.url}/v1/integrations/globex-unlisted/assets/icon?share=${globexUnlistedShare}`,
        { headers: { authorization: `Bearer ${world.tokens.bob}` } },
      );
      expect(svg.headers.get('content-type')).toBe('image/svg+xml');
      expect(svg.headers.get('content-security-policy')).toMatch(/default-src 'none'.*sandbox/);
      expect((await bob('GET', '/v1/integrations/acme-page/assets/preview-3')).status).toBe(404);
      expect((await bob('GET', '/v1/integrations/acme-page/assets/script')).body.error.code).toBe('invalid_request');
      expect((await bob('GET', '/v1/integrations/acme-page/assets/icon?v=9')).body.error.code).toBe('unknown_version');
    });

    it('refuses a publication with a file the manifest does not name, or a preview that is not PNG or JPEG, and stores nothing', async () => {
      const text = pageManifest('acme-page', 'acme', 'private', 'icon: icon.png\npreviewImages: [shots/one.png]\n');
      const unknown = await ada('POST', '/v1/integrations', {
        manifest: text,
        script: SCRIPT,
        assets: { 'icon.png': PNG.toString('base64'), 'secret.txt': 'aGk=' },
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toMatchObject({
        code: 'unknown_asset',
        message: expect.stringMatching(
          /assets\.secret\.txt: the manifest names no such file.*`icon\.png`, `shots\/one\.png`/,
        ),
      });
      const svgPreview = await ada('POST', '/v1/integrations', {
        manifest: text,
        script: SCRIPT,
        assets: { 'shots/one.png': SVG.toString('base64') },
      });
      expect(svgPreview.status).toBe(400);
      expect(svgPreview.body.error.message).toMatch(/a preview image must be a PNG or JPEG, not image\/svg\+xml/);
      const notBase64 = await ada('POST', '/v1/integrations', {
        manifest: text,
        script: SCRIPT,
        assets: { 'icon.png': '***' },
      });
      expect(notBase64.body.error).toMatchObject({ code: 'invalid_asset', message: expect.stringMatching(/base64/) });
      expect((await bob('GET', '/v1/integrations/acme-page')).body.version).toBe(1);
    });
  });

  describe('the installation page', () => {
    it('answers with ?view=page what the page shows; the plain read stays as it was', async () => {
      const plain = (await bob('GET', `/v1/installations/${org}`)).body;
      expect(plain).not.toHaveProperty('fields');
      expect(plain).not.toHaveProperty('integrationTitle');
      const { status, body } = await bob('GET', `/v1/installations/${org}?view=page`);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        ...plain,
        integrationTitle: 'acme-page title',
        integrationIcon: '/v1/integrations/acme-page/assets/icon?v=1',
        errors: [{ path: 'url', message: '`url` is required' }],
        configurationSchema: { type: 'object', required: ['url'] },
        children: [{ id: space, target: { type: 'space', id: 'acme-space' }, status: 'active' }],
        endpoints: [],
        blocks: [],
        space_selection: { mode: 'selected', spaces: ['acme-space'] },
      });
      expect(body.fields).toEqual([
        {
          name: 'url',
          type: 'string',
          title: 'Endpoint URL',
          description: 'Where to send things.',
          required: true,
          completion: false,
        },
        {
          name: 'region',
          type: 'string',
          title: 'region',
          default: 'eu',
          required: false,
          enum: ['eu', 'us'],
          completion: false,
        },
        { name: 'project', type: 'string', title: 'project', required: false, completion: true },
        {
          name: 'account',
          type: 'button',
          title: 'account',
          required: false,
          completion: false,
          buttonText: 'Connect',
          connected: false,
        },
      ]);
      await ada('PATCH', `/v1/installations/${org}/configuration`, { url: 'https://x.example.com', account: { t: 1 } });
      const after = (await bob('GET', `/v1/installations/${org}?view=page`)).body;
      expect(after.status).toBe('active');
      expect(after.errors).toEqual([]);
      expect(after.fields.find((f: { name: string }) => f.name === 'account').connected).toBe(true);
      const spacePage = (await bob('GET', `/v1/installations/${space}?view=page`)).body;
      expect(spacePage).toMatchObject({ children: [], blocks: [{ id: 'counter' }] });
      expect(spacePage.configurationSchema.properties).toEqual({ enabled: { type: 'boolean', default: true } });
      expect((await carol('GET', `/v1/installations/${org}?view=page`)).status).toBe(403);
      expect((await bob('GET', `/v1/installations/${org}?view=everything`)).body.error.code).toBe('invalid_request');
    });

    it('documents the new routes in the OpenAPI document', async () => {
      const { body } = await world.anonymous('GET', '/v1/openapi.json');
      for (const path of [
        '/v1/orgs/{org}',
        '/v1/spaces/{id}',
        '/v1/sites/{id}',
        '/v1/integrations/{name}/assets/{asset}',
      ]) {
        expect(Object.keys(body.paths), path).toContain(path);
      }
      expect(Object.keys(body.paths['/v1/orgs'])).toEqual(expect.arrayContaining(['get', 'post']));
      expect(Object.keys(body.paths['/v1/integrations'])).toEqual(expect.arrayContaining(['get', 'post']));
      expect(body.components.schemas.InstallationPage.allOf[1].required).toEqual(
        expect.arrayContaining([
          'integrationTitle',
          'fields',
          'errors',
          'configurationSchema',
          'children',
          'endpoints',
        ]),
      );
    });
  });
});
