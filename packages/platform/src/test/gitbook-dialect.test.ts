/**
 * The platform side of the GitBook dialect (decision 030), on SQLite and PostgreSQL: a version
 * published with the dialect's facts keeps them (bad facts are refused with a 400 that says what
 * to fix), and its dispatches carry that runtime's environment shapes while an integration written
 * for Portico keeps its own. The integrations here are written for these tests: they run in this
 * process and record what they are sent.
 */
import type { Envelope, Integration, IntegrationDescriptor } from '@portico/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../test-support/backends.js';
import { until } from '../test-support/webhook-world.js';
import { startWorld, type World } from '../test-support/world.js';

type Received = { event: Record<string, any>; environment: Record<string, any> };

/**
 * An integration that records each envelope and answers what `handle` answers (200 `{}` when it
 * answers nothing), as a handler of that runtime would.
 */
function recording(
  received: Received[],
  handle: (envelope: Received) => Promise<Response | undefined> = async () => undefined,
): Integration {
  const descriptor: IntegrationDescriptor = {
    runtime: 'portico',
    versions: ['v1'],
    fetch: true,
    events: ['space_content_updated', 'installation_setup', 'space_installation_setup', 'site_installation_setup'],
    components: [],
  };
  const dispatch = async (envelope: Envelope) => {
    const copy = JSON.parse(JSON.stringify(envelope)) as Received;
    received.push(copy);
    return (await handle(copy)) ?? Response.json({});
  };
  return { descriptor, dispatch, fetch: async () => new Response('use dispatch', { status: 500 }) };
}

/** A manifest of an integration with a site-level form, translated or not. */
const installable = (name: string) => `name: ${name}
title: ${name}
description: Records what it is sent
organization: acme
visibility: private
scopes: [space:content:read]
configurations:
  account:
    properties:
      team:
        type: string
  site:
    properties:
      trackingId:
        type: string
`;
const appFacts = { target: 'all', configurationComponents: {}, blocks: {} };

/**
 * A worker written for these tests the way that runtime answers: `GET /v1` is a 500, the envelope's
 * parts are read as text, an event it does not handle is a 406. On its space installation's setup
 * it writes its configuration through `apiEndpoint` with its token.
 */
const WORKER_SCRIPT = `export default { async fetch(request) {
  if (request.method === 'GET') return new Response('no such route', { status: 500 });
  const form = await request.formData();
  const event = JSON.parse(form.get('event'));
  const environment = JSON.parse(form.get('environment'));
  if (event.type !== 'space_installation_setup') return Response.json({ error: 'not handled' }, { status: 406 });
  const space = environment.spaceInstallation;
  if (space.configuration.seenBy) return Response.json({});
  const path = '/v1/integrations/' + environment.integration.name + '/installations/' + environment.installation.id + '/spaces/' + space.space;
  const response = await fetch(environment.apiEndpoint + path, {
    method: 'PATCH',
    headers: { authorization: 'Bearer ' + environment.apiTokens.installation, 'content-type': 'application/json' },
    body: JSON.stringify({ configuration: { seenBy: 'worker ' + MODE } }),
  });
  if (!response.ok) return Response.json({ error: await response.text() }, { status: 500 });
  return Response.json({});
} };`;

/** A translated GitBook-dialect manifest, as `portico publish` sends it. */
const manifest = (name: string) => `# Translated by portico from gitbook-manifest.yaml
name: ${name}
title: ${name}
description: Written for GitBook's runtime, for these tests
organization: acme
visibility: private
scopes: [space:content:read]
blocks:
  - id: diagram
    title: Diagram
    description: A diagram
`;

const facts = {
  target: 'all',
  contentSecurityPolicy: { 'script-src': "https://cdn.example.com 'self'" },
  configurationComponents: { account: 'settings' },
  blocks: { diagram: { urlUnfurl: ['https://diagrams.example.com/*'] } },
};

describe.each(backends)('the GitBook dialect on $name', (backend) => {
  let world: World;
  const received = { 'gb-app': [] as Received[], 'native-app': [] as Received[], 'gb-writer': [] as Received[] };
  /** What gb-writer's setup handler was answered by the compat routes it called. */
  const answers: { status: number; body: any }[] = [];
  beforeAll(async () => {
    world = await startWorld(
      backend,
      {},
      {
        inProcess: new Map([
          [
            'gb-app',
            recording(received['gb-app'], async ({ event }) =>
              // That runtime's error answer.
              event.type === 'ui_render'
                ? Response.json({ error: 'Set the API key on the configuration screen first' }, { status: 400 })
                : undefined,
            ),
          ],
          ['native-app', recording(received['native-app'])],
          [
            'gb-writer',
            recording(received['gb-writer'], async ({ event, environment }) => {
              // As a handler written for that runtime does: its API client, its token, its shapes.
              if (event.type !== 'space_installation_setup' || environment.spaceInstallation.configuration.seenBy)
                return undefined;
              const call = async (path: string, body: unknown) => {
                const response = await fetch(`${environment.apiEndpoint}${path}`, {
                  method: 'PATCH',
                  headers: {
                    authorization: `Bearer ${environment.apiTokens.installation}`,
                    'content-type': 'application/json',
                  },
                  body: JSON.stringify(body),
                });
                answers.push({ status: response.status, body: await response.json() });
              };
              const installation = `/v1/integrations/gb-writer/installations/${environment.installation.id}`;
              await call(`${installation}/spaces/${environment.spaceInstallation.space}`, {
                configuration: { seenBy: 'setup handler', oauth_credentials: { access_token: 'at_1' } },
              });
              await call(installation, { configuration: { team: 'set by the space handler' } });
              return undefined;
            }),
          ],
        ]),
      },
    );
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });

  describe('publishing', () => {
    it('keeps the dialect’s facts with the version and shows them on the integration', async () => {
      const ada = world.as(world.tokens.ada);
      const published = await ada('POST', '/v1/integrations', {
        manifest: manifest('gb-facts'),
        script: '// a bundle',
        gitbook: facts,
      });
      expect(published.status, JSON.stringify(published.body)).toBe(201);
      const stored = await world.platform.ctx.db
        .selectFrom('integration_versions')
        .select('gitbook')
        .where('integration_name', '=', 'gb-facts')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(stored.gitbook as string)).toEqual(facts);
      const page = await ada('GET', '/v1/integrations/gb-facts');
      expect(page.body.gitbook).toEqual(facts);
      // That runtime cannot list its components: its block and its configuration component are read
      // from the manifest, the latter for the configuration screens of its level (not a block).
      expect(page.body.components).toEqual([
        { id: 'diagram', title: 'Diagram', description: 'A diagram', block: true },
        { id: 'settings', title: 'settings', block: false, configurationLevel: 'account' },
      ]);
    });

    it('keeps nothing for a version written for Portico', async () => {
      const ada = world.as(world.tokens.ada);
      const published = await ada('POST', '/v1/integrations', { manifest: manifest('native'), script: '// a bundle' });
      expect(published.status, JSON.stringify(published.body)).toBe(201);
      const page = await ada('GET', '/v1/integrations/native');
      expect(page.body).not.toHaveProperty('gitbook');
    });

    it.each([
      [
        'a target it does not know',
        { ...facts, target: 'spaces' },
        /body\.gitbook\.target: must be one of all, organization, space, site/,
      ],
      ['no target', { ...facts, target: undefined }, /body\.gitbook\.target/],
      ['a key it does not know', { ...facts, csp: 'x' }, /unknown field `csp` in body\.gitbook/],
      [
        'a policy that is not text',
        { ...facts, contentSecurityPolicy: { 'script-src': ['a'] } },
        /body\.gitbook\.contentSecurityPolicy: must be a policy as text, or a mapping of directives/,
      ],
      [
        'a block the manifest does not have',
        { ...facts, blocks: { chart: {} } },
        /gitbook\.blocks\.chart: the manifest has no block "chart" \(its blocks are "diagram"\)/,
      ],
    ])('refuses %s with a 400 that says what to fix', async (_, gitbook, message) => {
      const ada = world.as(world.tokens.ada);
      const refused = await ada('POST', '/v1/integrations', {
        manifest: manifest('gb-refused'),
        script: '// a bundle',
        gitbook,
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(message);
      expect((await ada('GET', '/v1/integrations/gb-refused')).status).toBe(404);
    });
  });

  /** Installs `name` in acme and into its space and site; answers the three installations' ids. */
  async function installEverywhere(name: string) {
    const ada = world.as(world.tokens.ada);
    const org = await ada('POST', '/v1/orgs/acme/installations', { integration: name });
    expect(org.status, JSON.stringify(org.body)).toBe(201);
    const space = await ada('POST', `/v1/installations/${org.body.id}/spaces/acme-space`);
    const site = await ada('POST', `/v1/installations/${org.body.id}/sites/acme-site`);
    expect([space.status, site.status]).toEqual([201, 201]);
    return { org: org.body.id as string, space: space.body.id as string, site: site.body.id as string };
  }

  /** The environment of the first `type` event `name` received for `installationId`. */
  const environmentOf = (name: keyof typeof received, type: string, installationId: string) =>
    until(`${name} to receive ${type} for ${installationId}`, () => {
      const found = received[name].find((r) => r.event.type === type && r.event.installationId === installationId);
      return found?.environment;
    });

  describe('the environment', () => {
    let gb: { org: string; space: string; site: string };
    beforeAll(async () => {
      const ada = world.as(world.tokens.ada);
      for (const [name, gitbook] of [
        ['gb-app', appFacts],
        ['native-app', undefined],
      ] as const) {
        const published = await ada('POST', '/v1/integrations', {
          manifest: installable(name),
          script: '// in-process',
          ...(gitbook ? { gitbook } : {}),
        });
        expect(published.status, JSON.stringify(published.body)).toBe(201);
      }
      gb = await installEverywhere('gb-app');
      await ada('PATCH', `/v1/installations/${gb.org}/configuration`, { team: 'docs' });
      await ada('PATCH', `/v1/installations/${gb.space}/configuration`, { trackingId: 'T-1' });
    });

    it('of an organization installation has that runtime’s shapes', async () => {
      const url = world.platform.url;
      const environment = await until('the setup event after the edit', () => {
        const found = received['gb-app'].find(
          (r) => r.event.type === 'installation_setup' && r.environment.installation.configuration.team === 'docs',
        );
        return found?.environment;
      });
      expect(environment).toEqual({
        apiEndpoint: `${url}/compat/gitbook`,
        apiTokens: { installation: expect.stringMatching(/^pti_/), integration: environment.apiTokens.installation },
        integration: {
          name: 'gb-app',
          title: 'gb-app',
          description: 'Records what it is sent',
          summary: '',
          organization: 'acme',
          visibility: 'private',
          version: '1',
          target: 'all',
          scopes: ['space:content:read'],
          categories: [],
          externalLinks: [],
          previewImages: [],
          blocks: [],
          urls: {
            publicEndpoint: `${url}/v1/integrations/gb-app/public`,
            publicContentEndpoint: `${url}/v1/integrations/gb-app/public-content`,
          },
        },
        installation: {
          id: gb.org,
          status: 'active',
          target: { organization: 'acme' },
          configuration: { team: 'docs' },
          externalIds: [],
          space_selection: { mode: 'selected', spaces: ['acme-space'] },
          site_selection: { mode: 'selected', sites: ['acme-site'] },
          urls: { publicEndpoint: `${url}/v1/installations/${gb.org}/public` },
        },
        signingSecrets: { integration: expect.any(String), installation: expect.any(String) },
        secrets: {},
      });
    });

    it('of a space installation has its organization installation and spaceInstallation', async () => {
      const url = world.platform.url;
      const environment = await until('the space setup event after the edit', () => {
        const found = received['gb-app'].find(
          (r) =>
            r.event.type === 'space_installation_setup' &&
            r.environment.spaceInstallation?.configuration.trackingId === 'T-1',
        );
        return found?.environment;
      });
      expect(environment.installation).toMatchObject({ id: gb.org, target: { organization: 'acme' } });
      expect(environment.spaceInstallation).toEqual({
        integration: 'gb-app',
        installation: gb.org,
        space: 'acme-space',
        status: 'active',
        configuration: { trackingId: 'T-1' },
        externalIds: [],
        urls: { publicEndpoint: `${url}/v1/installations/${gb.space}/public` },
      });
      expect(environment).not.toHaveProperty('siteInstallation');
      expect(environment.signingSecrets).toEqual({
        integration: expect.any(String),
        installation: expect.any(String),
        spaceInstallation: expect.any(String),
      });
      // Each secret is its own: derived per integration and per installation.
      expect(new Set(Object.values(environment.signingSecrets)).size).toBe(3);
      // The space installation's own token, not its organization installation's.
      const orgEnvironment = await environmentOf('gb-app', 'installation_setup', gb.org);
      expect(environment.apiTokens.installation).not.toBe(orgEnvironment.apiTokens.installation);
    });

    it('of a site installation has siteInstallation', async () => {
      const environment = await environmentOf('gb-app', 'site_installation_setup', gb.site);
      expect(environment.siteInstallation).toMatchObject({
        integration: 'gb-app',
        installation: gb.org,
        site: 'acme-site',
        configuration: {},
        urls: { publicEndpoint: `${world.platform.url}/v1/installations/${gb.site}/public` },
      });
      expect(environment).not.toHaveProperty('spaceInstallation');
      expect(environment.signingSecrets.siteInstallation).toEqual(expect.any(String));
    });

    it('reads a component’s { error: "…" } answer as the integration’s message', async () => {
      const rendered = await world.as(world.tokens.ada)(
        'POST',
        `/v1/installations/${gb.org}/components/settings/render`,
        {},
      );
      expect(rendered.status).toBe(400);
      expect(rendered.body.error).toEqual({
        code: 'integration_error',
        message: 'Set the API key on the configuration screen first',
      });
    });

    it('of an integration written for Portico does not change', async () => {
      const native = await installEverywhere('native-app');
      const environment = await environmentOf('native-app', 'space_installation_setup', native.space);
      expect(environment).toMatchObject({
        apiEndpoint: world.platform.url,
        id: native.space,
        target: 'space',
        space: 'acme-space',
        parentInstallationId: native.org,
        installation: { id: native.org },
        integration: { name: 'native-app', urls: { publicEndpoint: expect.any(String) } },
      });
      for (const key of ['spaceInstallation', 'signingSecrets']) expect(environment).not.toHaveProperty(key);
      expect(environment.apiTokens).toEqual({ installation: expect.any(String) });
    });
  });

  describe('the /compat/gitbook API', () => {
    let writer: { org: string; space: string; site: string };
    let app: { org: string; space: string; site: string };
    let tokens: { org: string; space: string; site: string };
    const compat = (token: string | undefined, method: string, path: string, body?: unknown) =>
      (token === undefined ? world.anonymous : world.as(token))(method, `/compat/gitbook${path}`, body);

    beforeAll(async () => {
      const ada = world.as(world.tokens.ada);
      const published = await ada('POST', '/v1/integrations', {
        // (A site scope: its token reads the sites it is in, DESIGN.md "Granted scopes".)
        manifest: installable('gb-writer')
          .replace('trackingId:', 'seenBy:')
          .replace('scopes: [space:content:read]', 'scopes: [space:content:read, site:metadata:read]'),
        script: '// in-process',
        gitbook: appFacts,
      });
      expect(published.status, JSON.stringify(published.body)).toBe(201);
      writer = await installEverywhere('gb-writer');
      app = (await ada('GET', '/v1/orgs/acme')).body.installations
        .filter((i: { integration: string }) => i.integration === 'gb-app')
        .map((i: { id: string }) => i.id)[0];
      const org = await environmentOf('gb-writer', 'installation_setup', writer.org);
      const space = await environmentOf('gb-writer', 'space_installation_setup', writer.space);
      const site = await environmentOf('gb-writer', 'site_installation_setup', writer.site);
      tokens = {
        org: org.apiTokens.installation,
        space: space.apiTokens.installation,
        site: site.apiTokens.installation,
      };
    });

    it('lets an event handler update its installations with its token, and it sees the change', async () => {
      await until('the handler’s two calls', () => (answers.length >= 2 ? answers : undefined));
      expect(answers[0]).toEqual({
        status: 200,
        body: {
          integration: 'gb-writer',
          installation: writer.org,
          space: 'acme-space',
          status: 'active',
          configuration: { seenBy: 'setup handler', oauth_credentials: { access_token: 'at_1' } },
          externalIds: [],
          urls: { publicEndpoint: `${world.platform.url}/v1/installations/${writer.space}/public` },
        },
      });
      expect(answers[1]).toMatchObject({
        status: 200,
        body: { id: writer.org, target: { organization: 'acme' }, configuration: { team: 'set by the space handler' } },
      });
      // Portico's own API shows the same; a property the form does not declare is kept, and valid.
      const ada = world.as(world.tokens.ada);
      const space = await ada('GET', `/v1/installations/${writer.space}?view=page`);
      expect(space.body).toMatchObject({
        status: 'active',
        configuration: { seenBy: 'setup handler', oauth_credentials: { access_token: 'at_1' } },
        errors: [],
      });
      // What the integration writes owes it no setup event: its handler ran once (nothing is owed).
      await until('nothing owed', async () =>
        (await world.platform.ctx.db.selectFrom('outbox').select('id').where('dispatched_at', 'is', null).execute())
          .length === 0
          ? true
          : undefined,
      );
      const setups = received['gb-writer'].filter(
        (r) => r.event.type === 'space_installation_setup' && r.event.installationId === writer.space,
      );
      expect(setups).toHaveLength(1);
    });

    it('lets a space or site installation’s token update its organization installation and its siblings', async () => {
      const base = `/v1/integrations/gb-writer/installations/${writer.org}`;
      const site = await compat(tokens.space, 'PATCH', `${base}/sites/acme-site`, {
        configuration: { seenBy: 'the space' },
      });
      expect(site.status, JSON.stringify(site.body)).toBe(200);
      expect(site.body).toMatchObject({ site: 'acme-site', configuration: { seenBy: 'the space' } });
      const org = await compat(tokens.site, 'PATCH', base, { configuration: { team: null } });
      expect(org.status, JSON.stringify(org.body)).toBe(200);
      expect(org.body.configuration).toEqual({});
    });

    it('refuses a token another installation’s update, and says why', async () => {
      // Another integration's organization installation, with this integration's name or its own.
      const other = await compat(tokens.org, 'PATCH', `/v1/integrations/gb-app/installations/${app}`, {
        configuration: { team: 'x' },
      });
      expect(other.status).toBe(403);
      expect(other.body.error.message).toMatch(
        /an installation's token may update only its own organization installation and the space and site installations below it/,
      );
      const fromSpace = await compat(
        tokens.space,
        'PATCH',
        `/v1/integrations/gb-app/installations/${app}/spaces/acme-space`,
        {},
      );
      expect(fromSpace.status).toBe(403);
      expect(fromSpace.body.error.message).toMatch(new RegExp(`${writer.space} \\(below ${writer.org}\\)`));
      // Its own installation under another integration's name: not found, named.
      const renamed = await compat(tokens.org, 'PATCH', `/v1/integrations/gb-app/installations/${writer.org}`, {});
      expect(renamed.status).toBe(404);
      expect(renamed.body.error.message).toBe(
        `the installation ${writer.org} of the integration gb-app does not exist`,
      );
      // A place it is not installed in.
      const missing = await compat(
        tokens.org,
        'PATCH',
        `/v1/integrations/gb-writer/installations/${writer.org}/spaces/globex-space`,
        {},
      );
      expect(missing.status).toBe(404);
      expect(missing.body.error.message).toMatch(/an installation of gb-writer in the space globex-space/);
      // Its space installation's id where the organization installation's belongs.
      const wrongLevel = await compat(
        tokens.space,
        'PATCH',
        `/v1/integrations/gb-writer/installations/${writer.space}`,
        {},
      );
      expect(wrongLevel.status).toBe(403);
      // No token; a person outside the organization; a member (refused, as on Portico's routes); an admin.
      expect(
        (await compat(undefined, 'PATCH', `/v1/integrations/gb-writer/installations/${writer.org}`, {})).status,
      ).toBe(401);
      const dave = await compat(
        world.tokens.dave,
        'PATCH',
        `/v1/integrations/gb-writer/installations/${writer.org}`,
        {},
      );
      expect(dave.status).toBe(403);
      const bob = await compat(world.tokens.bob, 'PATCH', `/v1/integrations/gb-writer/installations/${writer.org}`, {
        configuration: { team: 'bob' },
      });
      expect(bob.status, JSON.stringify(bob.body)).toBe(403);
      expect(bob.body.error.message).toMatch(/^changing the configuration needs the admin role/);
      const ada = await compat(world.tokens.ada, 'PATCH', `/v1/integrations/gb-writer/installations/${writer.org}`, {
        configuration: { team: 'ada' },
      });
      expect(ada.status, JSON.stringify(ada.body)).toBe(200);
    });

    it('refuses a bad body with a 400 that names the field', async () => {
      const path = `/v1/integrations/gb-writer/installations/${writer.org}`;
      const notObject = await compat(tokens.org, 'PATCH', path, { configuration: 'team=x' });
      expect(notObject.status).toBe(400);
      expect(notObject.body.error.message).toMatch(/body\.configuration must be an object/);
      const unknown = await compat(tokens.org, 'PATCH', path, { configurations: {} });
      expect(unknown.body.error.message).toMatch(/unknown field `configurations` in body/);
      const externalIds = await compat(tokens.org, 'PATCH', path, { externalIds: ['T1'] });
      expect(externalIds.status).toBe(400);
      expect(externalIds.body.error.message).toMatch(/`externalIds` is not kept by Portico yet: store the identifier/);
      const notJson = await compat(tokens.org, 'PATCH', path, '{configuration');
      expect(notJson.status).toBe(400);
      expect(notJson.body.error.message).toMatch(/^the body is not valid JSON/);
    });

    it('reads the spaces and sites the integration is installed in', async () => {
      const space = await compat(tokens.org, 'GET', '/v1/spaces/acme-space');
      expect(space).toEqual({
        status: 200,
        body: {
          object: 'space',
          id: 'acme-space',
          title: 'Acme docs',
          organization: 'acme',
          urls: {
            location: `${world.platform.url}/compat/gitbook/v1/spaces/acme-space`,
            app: `${world.platform.url}/spaces/acme-space`,
            published: `${world.platform.url}/spaces/acme-space`,
          },
        },
      });
      const site = await compat(tokens.site, 'GET', '/v1/orgs/acme/sites/acme-site');
      expect(site.body).toEqual({
        object: 'site',
        id: 'acme-site',
        title: 'Acme site',
        organization: 'acme',
        urls: {
          location: `${world.platform.url}/compat/gitbook/v1/orgs/acme/sites/acme-site`,
          app: `${world.platform.url}/sites/acme-site`,
          published: `${world.platform.url}/sites/acme-site`,
        },
      });
      const elsewhere = await compat(tokens.org, 'GET', '/v1/spaces/globex-space');
      expect(elsewhere.status).toBe(403);
      expect(elsewhere.body.error.message).toMatch(/gb-writer is not installed in the space globex-space/);
      expect((await compat(tokens.org, 'GET', '/v1/orgs/globex/sites/acme-site')).status).toBe(404);
      expect((await compat(world.tokens.carol, 'GET', '/v1/spaces/acme-space')).status).toBe(403);
    });

    it('says which routes it answers for the rest of that API', async () => {
      const other = await compat(tokens.org, 'GET', '/v1/orgs/acme/members');
      expect(other.status).toBe(501);
      expect(other.body.error.message).toMatch(
        /^Portico does not answer GET \/v1\/orgs\/acme\/members of GitBook's API; under \/compat\/gitbook it answers PATCH/,
      );
    });
  });

  describe('uninstalling', () => {
    /** The `type` events `name` received for `installationId`, once there is one. */
    const deletedEvent = (name: keyof typeof received, type: string, installationId: string) =>
      until(`${name} to receive ${type} for ${installationId}`, () =>
        received[name].find((r) => r.event.type === type && r.event.installationId === installationId),
      );

    it('sends a space installation its deleted event, with the environment it had', async () => {
      const ada = world.as(world.tokens.ada);
      const org = (await ada('GET', '/v1/orgs/acme')).body.installations.find(
        (i: { integration: string }) => i.integration === 'gb-writer',
      ).id;
      const space = (await ada('GET', `/v1/installations/${org}?view=page`)).body.children.find(
        (c: { target: { type: string } }) => c.target.type === 'space',
      ).id;
      expect((await ada('DELETE', `/v1/installations/${space}`)).status).toBe(204);
      const { event, environment } = await deletedEvent('gb-writer', 'space_installation_deleted', space);
      expect(event).toMatchObject({
        installationId: space,
        spaceId: 'acme-space',
        eventId: expect.stringMatching(/^deleted_/),
      });
      expect(environment.spaceInstallation).toMatchObject({ installation: org, space: 'acme-space' });
      expect(environment.installation.id).toBe(org);
      // Its token was revoked with it.
      expect(environment.apiTokens).toEqual({ installation: '', integration: '' });
    });

    it('sends the organization installation and every one below it their deleted events, for every integration', async () => {
      const ada = world.as(world.tokens.ada);
      const installations = (await ada('GET', '/v1/orgs/acme')).body.installations as {
        id: string;
        integration: string;
      }[];
      for (const name of ['gb-writer', 'native-app'] as const) {
        const org = installations.find((i) => i.integration === name)?.id as string;
        const children = (await ada('GET', `/v1/installations/${org}?view=page`)).body.children as {
          id: string;
          target: { type: string };
        }[];
        // Paused first: the deleted events go out all the same.
        expect((await ada('POST', `/v1/installations/${org}/pause`)).status).toBe(200);
        expect((await ada('DELETE', `/v1/installations/${org}`)).status).toBe(204);
        const orgDeleted = await deletedEvent(name, 'installation_deleted', org);
        expect(orgDeleted.event).toMatchObject({ installationId: org });
        for (const child of children) {
          const { event } = await deletedEvent(name, `${child.target.type}_installation_deleted`, child.id);
          expect(event.installationId).toBe(child.id);
        }
      }
      const native = received['native-app'].find((r) => r.event.type === 'installation_deleted');
      // Portico's environment, as for every other event of an integration written for Portico.
      expect(native?.environment).toMatchObject({ target: 'organization', apiTokens: { installation: '' } });
    });
  });

  it('runs a worker built for that runtime in workerd: its envelope, its API calls through apiEndpoint', async () => {
    const ada = world.as(world.tokens.ada);
    const published = await ada('POST', '/v1/integrations', {
      manifest: installable('gb-worker').replace('trackingId:', 'seenBy:'),
      script: `const MODE = "production";\n${WORKER_SCRIPT}`,
      gitbook: appFacts,
    });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    const org = await ada('POST', '/v1/orgs/acme/installations', { integration: 'gb-worker' });
    const space = await ada('POST', `/v1/installations/${org.body.id}/spaces/acme-space`);
    expect(space.status, JSON.stringify(space.body)).toBe(201);
    const configuration = await until(
      'the worker to write its configuration',
      async () => {
        const read = await ada('GET', `/v1/installations/${space.body.id}`);
        return read.body.configuration.seenBy !== undefined ? read.body.configuration : undefined;
      },
      30_000,
    );
    expect(configuration).toEqual({ seenBy: 'worker production' });
    const dispatch = await until('the setup dispatch to be recorded', async () => {
      const { body } = await ada('GET', `/v1/installations/${space.body.id}/dispatches`);
      return (body as { type: string; host: string; status: number }[]).find(
        (d) => d.type === 'space_installation_setup',
      );
    });
    expect(dispatch).toMatchObject({ host: 'workerd', status: 200, error: null });

    // What it handles comes from its manifest (its GET /v1 is a 500): the events its scopes allow.
    // Its 406 to one of them is "not handled", and that type is not sent to this version again.
    const emit = async (eventId: string) => {
      const sent = await world.admin('POST', '/v1/events', {
        type: 'space_content_updated',
        eventId,
        spaceId: 'acme-space',
        revisionId: 'r1',
      });
      expect(sent.status, JSON.stringify(sent.body)).toBe(202);
      return until(`${eventId} to be routed and dispatched`, async () => {
        const { body } = await world.admin('GET', `/v1/events/${eventId}`);
        const mine = body.installations.find((i: { installationId: string }) => i.installationId === space.body.id);
        return body.routedAt !== null && (mine === undefined || mine.outcome !== null) ? { mine } : undefined;
      });
    };
    const first = await emit('evt_gb_worker_1');
    expect(first.mine?.outcome).toBe('not_handled');
    const second = await emit('evt_gb_worker_2');
    expect(second.mine).toBeUndefined();
    const { body: dispatches } = await ada('GET', `/v1/installations/${space.body.id}/dispatches`);
    expect(
      (dispatches as { type: string; status: number }[]).filter((d) => d.type === 'space_content_updated'),
    ).toMatchObject([{ status: 406 }]);

    // Its 406 to its organization installation's setup event: a save does not owe it that event
    // again, while the space installation, whose setup it handles, gets its own on each save.
    const setups = async (id: string, type: string) =>
      ((await ada('GET', `/v1/installations/${id}/dispatches`)).body as { type: string; status: number }[]).filter(
        (d) => d.type === type,
      );
    expect(
      await until('the organization setup dispatch', async () => {
        const found = await setups(org.body.id, 'installation_setup');
        return found.length > 0 ? found : undefined;
      }),
    ).toMatchObject([{ status: 406 }]);
    for (const note of ['one', 'two']) {
      const saved = await ada('PATCH', `/v1/installations/${org.body.id}/configuration`, { team: note });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    }
    const spaceSetups = (await setups(space.body.id, 'space_installation_setup')).length;
    expect((await ada('PATCH', `/v1/installations/${space.body.id}/configuration`, { seenBy: 'three' })).status).toBe(
      200,
    );
    await until('the space setup dispatch of the save', async () =>
      (await setups(space.body.id, 'space_installation_setup')).length > spaceSetups ? true : undefined,
    );
    expect(await setups(org.body.id, 'installation_setup')).toHaveLength(1);
  }, 60_000);

  it('installs an integration only where its target says', async () => {
    const ada = world.as(world.tokens.ada);
    const published = await ada('POST', '/v1/integrations', {
      manifest: installable('gb-sites'),
      script: '// never run here',
      gitbook: { ...appFacts, target: 'site' },
    });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    const org = await ada('POST', '/v1/orgs/acme/installations', { integration: 'gb-sites' });
    expect(org.status).toBe(201);
    const space = await ada('POST', `/v1/installations/${org.body.id}/spaces/acme-space`);
    expect(space.status).toBe(400);
    expect(space.body.error).toEqual({
      code: 'outside_target',
      message:
        'gb-sites cannot be installed into a space: its gitbook-manifest.yaml says `target: site` (it is installed in the organization and its sites only); install it into a site instead',
    });
    const allSpaces = await ada('PATCH', `/v1/installations/${org.body.id}`, { space_selection: { mode: 'all' } });
    expect(allSpaces.status).toBe(400);
    expect(allSpaces.body.error.code).toBe('outside_target');
    const site = await ada('POST', `/v1/installations/${org.body.id}/sites/acme-site`);
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    // Emptying a selection it may not have is no installation.
    const none = await ada('PATCH', `/v1/installations/${org.body.id}`, {
      space_selection: { mode: 'selected', spaces: [] },
    });
    expect(none.status, JSON.stringify(none.body)).toBe(200);
  });
});
