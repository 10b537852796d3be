/** The HTTP API on a real server on 127.0.0.1, against SQLite and PostgreSQL. */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentToken } from '../installations/tokens.js';
import { backends } from '../test-support/backends.js';
import { manifest, startWorld, type World } from '../test-support/world.js';

describe.each(backends)('the API on $name', (backend) => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld(backend);
  }, 60_000);
  afterAll(() => world?.close());

  const publish = (token: string, text: string, secrets?: Record<string, string>) =>
    world.as(token)('POST', '/v1/integrations', {
      manifest: text,
      script: 'export default {}',
      ...(secrets ? { secrets } : {}),
    });

  describe('health and the OpenAPI document', () => {
    it('answers /healthz', async () => {
      expect(await world.anonymous('GET', '/healthz')).toEqual({ status: 200, body: { ok: true } });
    });

    it('serves an OpenAPI 3.1 document of every route, from the definitions that validate them', async () => {
      const { status, body } = await world.anonymous('GET', '/v1/openapi.json');
      expect(status).toBe(200);
      expect(body.openapi).toBe('3.1.0');
      for (const path of [
        '/v1/orgs',
        '/v1/orgs/{org}/spaces',
        '/v1/orgs/{org}/sites',
        '/v1/users',
        '/v1/orgs/{org}/members/{user}',
        '/v1/integrations',
        '/v1/integrations/{name}',
        '/v1/orgs/{org}/installations',
        '/v1/installations/{id}/spaces/{target}',
        '/v1/installations/{id}/sites/{target}',
        '/v1/installations/{id}',
        '/v1/installations/{id}/configuration',
        '/v1/installations/{id}/pause',
        '/v1/installations/{id}/resume',
      ]) {
        expect(Object.keys(body.paths), path).toContain(path);
      }
      expect(body.components.schemas.OrganizationInput).toMatchObject({
        additionalProperties: false,
        required: ['id', 'title'],
      });
    });

    it('answers an unknown route with a JSON 404', async () => {
      expect(await world.admin('GET', '/v1/nothing')).toEqual({
        status: 404,
        body: { error: { code: 'not_found', message: 'no route GET /v1/nothing; see /v1/openapi.json' } },
      });
    });
  });

  describe('bad input changes nothing and says what is wrong', () => {
    it('wrong types and unknown fields', async () => {
      const answer = await world.admin('POST', '/v1/orgs', { id: 'new-org', title: 42, colour: 'red' });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_request');
      expect(answer.body.error.message).toMatch(/body\.title must be string/);
      expect(answer.body.error.message).toMatch(/unknown field `colour` in body/);
      expect((await world.admin('POST', '/v1/orgs/new-org/spaces', { id: 's', title: 'S' })).status).toBe(404);
    });

    it('malformed JSON and a body that is not JSON', async () => {
      const malformed = await world.admin('POST', '/v1/orgs', '{"id": "x",');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error).toMatchObject({
        code: 'invalid_json',
        message: expect.stringMatching(/not valid JSON/),
      });
      const text = await world.admin('POST', '/v1/orgs', 'id=x', { 'content-type': 'text/plain' });
      expect(text.status).toBe(415);
      expect(text.body.error.message).toMatch(/Content-Type: application\/json/);
    });

    it('a body over the limit (1 MiB) answers 413', async () => {
      const answer = await world.admin('POST', '/v1/orgs', { id: 'big', title: 'x'.repeat(1024 * 1024) });
      expect(answer.status).toBe(413);
      expect(answer.body.error.message).toMatch(/limit for this route is 1048576/);
    });

    it('an id that is not an id', async () => {
      const answer = await world.admin('POST', '/v1/orgs', { id: '../etc', title: 'x' });
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toMatch(/body\.id: must be 1 to 64 letters/);
    });

    it('nothing was created by any of those', async () => {
      const rows = await world.platform.ctx.db.selectFrom('organizations').select('id').orderBy('id').execute();
      expect(rows.map((r) => r.id)).toEqual(['acme', 'globex', 'portico']);
    });
  });

  describe('organizations, spaces, sites, users, memberships (operator only)', () => {
    it('refuses a duplicate organization, id or subdomain', async () => {
      expect((await world.admin('POST', '/v1/orgs', { id: 'acme', title: 'Again' })).status).toBe(409);
      expect((await world.admin('POST', '/v1/orgs', { id: 'acme2', title: 'A', subdomain: 'acme-docs' })).status).toBe(
        409,
      );
    });

    it('gives a new user a token that works, once', async () => {
      const created = await world.admin('POST', '/v1/users', { id: 'erin', name: 'Erin' });
      expect(created).toEqual({
        status: 201,
        body: { id: 'erin', name: 'Erin', token: expect.stringMatching(/^ptu_/) },
      });
      expect((await world.as(created.body.token)('GET', '/v1/integrations/none')).status).toBe(404);
      expect((await world.admin('POST', '/v1/users', { id: 'erin', name: 'Erin' })).status).toBe(409);
    });

    it('sets and changes a membership role; refuses unknown users and roles', async () => {
      expect(await world.admin('PUT', '/v1/orgs/globex/members/erin', {})).toEqual({
        status: 200,
        body: { organization: 'globex', user: 'erin', role: 'member' },
      });
      expect((await world.admin('PUT', '/v1/orgs/globex/members/erin', { role: 'admin' })).body.role).toBe('admin');
      expect((await world.admin('PUT', '/v1/orgs/globex/members/nobody', {})).status).toBe(404);
      expect((await world.admin('PUT', '/v1/orgs/globex/members/erin', { role: 'owner' })).status).toBe(400);
    });

    it('refuses users and installations on operator routes', async () => {
      const ada = world.as(world.tokens.ada);
      expect((await ada('POST', '/v1/orgs', { id: 'mine', title: 'Mine' })).status).toBe(403);
      expect((await ada('POST', '/v1/orgs/acme/spaces', { id: 'sp', title: 'S' })).status).toBe(403);
      expect((await ada('POST', '/v1/users', { id: 'x', name: 'X' })).status).toBe(403);
      expect((await ada('PUT', '/v1/orgs/acme/members/dave', {})).status).toBe(403);
    });
  });

  describe('publishing', () => {
    it('publishes for a member of the manifest organization (by id or subdomain), with versions', async () => {
      const first = await publish(world.tokens.bob, manifest('pub-one', 'acme-docs'));
      expect(first).toEqual({
        status: 201,
        body: {
          name: 'pub-one',
          version: 1,
          visibility: 'private',
          organization: 'acme',
          shareToken: expect.any(String),
          warnings: [],
        },
      });
      const second = await publish(world.tokens.ada, manifest('pub-one', 'acme', 'public'));
      expect(second.body).toMatchObject({ version: 2, visibility: 'public', shareToken: first.body.shareToken });
    });

    it('refuses a publisher outside the organization, and a name owned by another organization', async () => {
      expect((await publish(world.tokens.dave, manifest('pub-two', 'acme'))).status).toBe(403);
      const taken = await publish(world.tokens.carol, manifest('pub-one', 'globex'));
      expect(taken.status).toBe(403);
      expect(taken.body.error.message).toMatch(/belongs to another organization's integration; choose another name/);
    });

    it('answers an invalid manifest with its positioned errors', async () => {
      const answer = await publish(world.tokens.ada, 'name: Bad Name\ntitle: x\n');
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_manifest');
      expect(answer.body.error.errors).toContainEqual({
        path: 'name',
        line: 1,
        column: 7,
        message: expect.stringMatching(/lowercase words/),
      });
    });

    it('refuses an unknown organization and an empty script', async () => {
      expect((await publish(world.tokens.ada, manifest('pub-x', 'initech'))).body.error.code).toBe(
        'unknown_organization',
      );
      const empty = await world.as(world.tokens.ada)('POST', '/v1/integrations', {
        manifest: manifest('pub-x', 'acme'),
        script: ' ',
      });
      expect(empty.body.error.code).toBe('invalid_script');
    });

    it('refuses internal scopes to users and allows them to the operator', async () => {
      const text = manifest('internal-one', 'acme').replace(
        'scopes: [space:content:read]',
        'scopes: [site:script:inject]',
      );
      expect((await publish(world.tokens.ada, text)).status).toBe(400);
      expect((await publish(world.platform.adminToken, text)).status).toBe(201);
    });

    it('stores secrets encrypted, names missing ones, and never returns them', async () => {
      const text = `${manifest('with-secrets', 'acme')}secrets:\n  API_KEY: \${{ env.WS_API_KEY }}\n`;
      const missing = await publish(world.tokens.ada, text);
      expect(missing.status).toBe(400);
      expect(missing.body.error).toMatchObject({
        code: 'missing_secrets',
        message: expect.stringMatching(/WS_API_KEY \(for secret API_KEY\)/),
      });
      expect((await publish(world.tokens.ada, text, { WS_API_KEY: 'sk_live_plaintext_value' })).status).toBe(201);
      const read = await world.as(world.tokens.ada)('GET', '/v1/integrations/with-secrets');
      expect(read.status).toBe(200);
      expect(read.body.secretNames).toEqual(['API_KEY']);
      expect(JSON.stringify(read.body)).not.toMatch(/sk_live_plaintext_value/);
      const stored = await world.platform.ctx.db
        .selectFrom('integration_versions')
        .select('secrets')
        .where('integration_name', '=', 'with-secrets')
        .executeTakeFirstOrThrow();
      expect(stored.secrets).toMatch(/^v1\./);
      expect(stored.secrets).not.toMatch(/sk_live/);
      expect(JSON.parse(world.platform.ctx.box.open(stored.secrets as string))).toEqual({
        API_KEY: 'sk_live_plaintext_value',
      });
    });
  });

  describe('visibility (spec 2.1)', () => {
    beforeAll(async () => {
      await publish(world.tokens.ada, manifest('vis-private', 'acme', 'private'));
      await publish(world.tokens.ada, manifest('vis-unlisted', 'acme', 'unlisted'));
      await publish(world.tokens.ada, manifest('vis-public', 'acme', 'public'));
    });

    it('shows a private integration only to its organization', async () => {
      expect((await world.as(world.tokens.bob)('GET', '/v1/integrations/vis-private')).status).toBe(200);
      expect((await world.as(world.tokens.carol)('GET', '/v1/integrations/vis-private')).status).toBe(404);
      const install = await world.as(world.tokens.carol)('POST', '/v1/orgs/globex/installations', {
        integration: 'vis-private',
      });
      expect(install.status).toBe(404);
    });

    it('lets other organizations install an unlisted integration only with its share token', async () => {
      const { body } = await world.as(world.tokens.ada)('GET', '/v1/integrations/vis-unlisted');
      const carol = world.as(world.tokens.carol);
      expect((await carol('GET', '/v1/integrations/vis-unlisted')).status).toBe(404);
      expect((await carol('GET', `/v1/integrations/vis-unlisted?shareToken=${body.shareToken}`)).status).toBe(200);
      const refused = await carol('POST', '/v1/orgs/globex/installations', { integration: 'vis-unlisted' });
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toMatch(/unlisted: install it through its share link/);
      expect(
        (await carol('POST', '/v1/orgs/globex/installations', { integration: 'vis-unlisted', shareToken: 'guess' }))
          .status,
      ).toBe(403);
      expect(
        (
          await carol('POST', '/v1/orgs/globex/installations', {
            integration: 'vis-unlisted',
            shareToken: body.shareToken,
          })
        ).status,
      ).toBe(201);
    });

    it('lets anyone install a public integration, into their own organization only', async () => {
      expect(
        (await world.as(world.tokens.carol)('POST', '/v1/orgs/globex/installations', { integration: 'vis-public' }))
          .status,
      ).toBe(201);
      expect(
        (await world.as(world.tokens.carol)('POST', '/v1/orgs/acme/installations', { integration: 'vis-public' }))
          .status,
      ).toBe(403);
      expect(
        (await world.as(world.tokens.dave)('POST', '/v1/orgs/globex/installations', { integration: 'vis-public' }))
          .status,
      ).toBe(403);
    });
  });

  describe('installations, configuration and status', () => {
    let org: string;
    beforeAll(async () => {
      await publish(world.tokens.ada, manifest('lifecycle', 'acme'));
      org = (await world.as(world.tokens.ada)('POST', '/v1/orgs/acme/installations', { integration: 'lifecycle' })).body
        .id;
    });

    it('installs at organization level with the defaults, pending until the required configuration is set', async () => {
      const { status, body } = await world.as(world.tokens.bob)('GET', `/v1/installations/${org}`);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        id: org,
        integration: 'lifecycle',
        organization: 'acme',
        target: { type: 'organization', id: 'acme' },
        parentId: null,
        status: 'pending',
        configuration: { retries: 3 },
        urls: { publicEndpoint: `${world.platform.url}/v1/installations/${org}/public` },
      });
      const again = await world.as(world.tokens.ada)('POST', '/v1/orgs/acme/installations', {
        integration: 'lifecycle',
      });
      expect(again.status).toBe(409);
    });

    it('reads an installation for a member only while the token and the membership stand, checked on each request', async () => {
      // Another node (or the operator's sync) changes the database: this node notices on the next request.
      const db = world.platform.ctx.db;
      const { token } = (await world.admin('POST', '/v1/users', { id: 'frank', name: 'Frank' })).body;
      const frank = world.as(token);
      expect((await frank('GET', `/v1/installations/${org}`)).status).toBe(403);
      await world.admin('PUT', '/v1/orgs/acme/members/frank', { role: 'member' });
      expect((await frank('GET', `/v1/installations/${org}`)).body).toMatchObject({ id: org, alerts: [] });
      expect((await frank('GET', '/v1/installations/inst_nope')).status).toBe(404);
      expect((await world.as('ptu_not-a-real-token')('GET', '/v1/installations/inst_nope')).status).toBe(401);
      await db.deleteFrom('memberships').where('user_id', '=', 'frank').execute();
      const removed = await frank('GET', `/v1/installations/${org}`);
      expect(removed.status).toBe(403);
      expect(removed.body.error.message).toBe('you are not a member of the organization acme');
      await world.admin('PUT', '/v1/orgs/acme/members/frank', { role: 'member' });
      expect((await frank('GET', `/v1/installations/${org}`)).status).toBe(200);
      await db.updateTable('user_tokens').set({ revoked_at: Date.now() }).where('user_id', '=', 'frank').execute();
      expect((await frank('GET', `/v1/installations/${org}`)).status).toBe(401);
      expect((await frank('GET', '/v1/installations/inst_nope')).status).toBe(401);
      expect((await world.admin('GET', `/v1/installations/${org}`)).body).toMatchObject({ id: org });
    });

    it('merges configuration edits, refuses wrong values, keeps an incomplete one pending, and moves the status', async () => {
      const ada = world.as(world.tokens.ada);
      // A wrong value is refused whole, with the field's error: nothing is stored.
      const wrong = await ada('PATCH', `/v1/installations/${org}/configuration`, { url: 42, retries: 4 });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toEqual({
        code: 'invalid_configuration',
        message: 'not saved: `url` must be text (a string)',
        errors: [{ path: 'url', message: '`url` must be text (a string)' }],
      });
      // A number too large for a double (JSON allows it; it parses as Infinity) is refused, not dropped.
      const huge = await ada('PATCH', `/v1/installations/${org}/configuration`, '{"retries": 1.5e400}');
      expect(huge.status).toBe(400);
      expect(huge.body.error.errors).toEqual([
        { path: 'retries', message: '`retries` is too large to store: enter a number between -1.7e308 and 1.7e308' },
      ]);
      expect((await ada('GET', `/v1/installations/${org}`)).body).toMatchObject({
        status: 'pending',
        configuration: { retries: 3 },
      });
      // A required string of only whitespace is missing: stored as unset, the installation waits.
      const blank = await ada('PATCH', `/v1/installations/${org}/configuration`, { url: '   ' });
      expect(blank).toEqual({
        status: 200,
        body: {
          status: 'pending',
          configuration: { retries: 3 },
          errors: [{ path: 'url', message: '`url` is required' }],
          warnings: [],
        },
      });
      const valid = await ada('PATCH', `/v1/installations/${org}/configuration`, { url: 'https://hooks.example.com' });
      expect(valid.body).toEqual({
        status: 'active',
        configuration: { retries: 3, url: 'https://hooks.example.com' },
        errors: [],
        warnings: [],
      });
      // A property the manifest does not declare is refused with the rest of the patch: nothing is stored.
      const refused = await ada('PATCH', `/v1/installations/${org}/configuration`, { retries: null, colour: 'red' });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({
        code: 'unknown_property',
        message: "`colour` is not a property of this integration's account configuration; it declares `url`, `retries`",
        errors: [{ path: 'colour' }],
      });
      const typo = await ada('PATCH', `/v1/installations/${org}/configuration`, { urll: 'https://x.example.com' });
      expect(typo.body.error.message).toMatch(/^`urll` is not a property .* \(did you mean "url"\?\)/);
      expect((await ada('GET', `/v1/installations/${org}`)).body).toMatchObject({
        status: 'active',
        configuration: { retries: 3, url: 'https://hooks.example.com' },
      });
      const removed = await ada('PATCH', `/v1/installations/${org}/configuration`, { retries: null, unknown: null });
      expect(removed.body).toEqual({
        status: 'active',
        configuration: { url: 'https://hooks.example.com' },
        errors: [],
        warnings: [],
      });
      expect((await ada('PATCH', `/v1/installations/${org}/configuration`, [1, 2])).status).toBe(400);
      expect((await ada('GET', `/v1/installations/${org}`)).body.status).toBe('active');
    });

    it('installs into a space and a site of the same organization, with the site schema', async () => {
      const ada = world.as(world.tokens.ada);
      const space = await ada('POST', `/v1/installations/${org}/spaces/acme-space`);
      expect(space.status).toBe(201);
      expect(space.body).toMatchObject({
        target: { type: 'space', id: 'acme-space' },
        parentId: org,
        status: 'active',
        configuration: { enabled: true },
      });
      const site = await ada('POST', `/v1/installations/${org}/sites/acme-site`);
      expect(site.body).toMatchObject({ target: { type: 'site', id: 'acme-site' }, status: 'active' });
      const invalid = await ada('PATCH', `/v1/installations/${site.body.id}/configuration`, { enabled: 'yes' });
      expect(invalid.status).toBe(400);
      expect(invalid.body.error.errors).toEqual([{ path: 'enabled', message: '`enabled` must be true or false' }]);
      expect((await ada('GET', `/v1/installations/${site.body.id}`)).body.status).toBe('active');
      expect((await ada('POST', `/v1/installations/${org}/spaces/globex-space`)).status).toBe(403);
      expect((await ada('POST', `/v1/installations/${org}/spaces/no-such-space`)).status).toBe(404);
      expect((await ada('POST', `/v1/installations/${space.body.id}/sites/acme-site`)).status).toBe(400);
      expect((await ada('POST', '/v1/installations/inst_missing/spaces/acme-space')).status).toBe(404);
      // A member may not choose places (the contract's Roles).
      const member = await world.as(world.tokens.bob)('POST', `/v1/installations/${org}/spaces/acme-space`);
      expect(member.status).toBe(403);
      expect(member.body.error.message).toMatch(
        /^installing into a space needs the admin role in the organization acme/,
      );
    });

    it('lets only organization admins pause and resume; a paused installation stays paused through edits', async () => {
      expect((await world.as(world.tokens.bob)('POST', `/v1/installations/${org}/pause`)).status).toBe(403);
      const ada = world.as(world.tokens.ada);
      expect((await ada('POST', `/v1/installations/${org}/pause`)).body.status).toBe('paused');
      expect((await ada('PATCH', `/v1/installations/${org}/configuration`, { retries: 5 })).body.status).toBe('paused');
      expect((await ada('POST', `/v1/installations/${org}/resume`)).body.status).toBe('active');
      expect((await world.admin('POST', `/v1/installations/${org}/pause`)).body.status).toBe('paused');
      expect((await world.admin('POST', `/v1/installations/${org}/resume`)).body.status).toBe('active');
    });

    it('records every status change with its time and cause', async () => {
      const history = await world.as(world.tokens.bob)('GET', `/v1/installations/${org}/status-history`);
      expect(history.body.map((h: { from: string; to: string; cause: string }) => [h.from, h.to, h.cause])).toEqual([
        [null, 'pending', 'installed'],
        ['pending', 'active', 'configuration'],
        ['active', 'paused', 'paused by ada'],
        ['paused', 'active', 'resumed by ada'],
        ['active', 'paused', 'paused by the operator'],
        ['paused', 'active', 'resumed by the operator'],
      ]);
      expect(history.body[0].at).toMatch(/^\d{4}-\d\d-\d\dT/);
    });

    it('owes a setup event, durably, for the install and every configuration edit, in order', async () => {
      const rows = await world.platform.ctx.db
        .selectFrom('outbox')
        .select(['event'])
        .where('installation_id', '=', org)
        .orderBy('id')
        .execute();
      const events = rows.map((r) => JSON.parse(r.event));
      expect(events.map((e) => [e.type, e.cause])).toEqual([
        ['installation_setup', 'installed'],
        // (The refused edits owe nothing.)
        ...Array(4).fill(['installation_setup', 'configuration']),
      ]);
      const children = await world.platform.ctx.db
        .selectFrom('outbox')
        .innerJoin('installations', 'installations.id', 'outbox.installation_id')
        .select(['outbox.event'])
        .where('installations.parent_id', '=', org)
        .execute();
      // The site's edit was refused (a wrong value): it owes nothing.
      expect(children.map((r) => JSON.parse(r.event).type).sort()).toEqual([
        'site_installation_setup',
        'space_installation_setup',
      ]);
    });
  });

  describe('installation tokens', () => {
    let first: string;
    let second: string;
    beforeAll(async () => {
      await publish(world.tokens.ada, manifest('tokens-a', 'acme'));
      await publish(world.tokens.ada, manifest('tokens-b', 'acme'));
      first = (await world.as(world.tokens.ada)('POST', '/v1/orgs/acme/installations', { integration: 'tokens-a' }))
        .body.id;
      second = (await world.as(world.tokens.ada)('POST', '/v1/orgs/acme/installations', { integration: 'tokens-b' }))
        .body.id;
    });

    it('reaches its own installation and nothing else', async () => {
      const own = world.as(await currentToken(world.platform.ctx, first));
      expect((await own('GET', `/v1/installations/${first}`)).status).toBe(200);
      expect(
        (await own('PATCH', `/v1/installations/${first}/configuration`, { url: 'https://x.test' })).body.status,
      ).toBe('active');
      expect((await own('GET', `/v1/installations/${second}`)).status).toBe(403);
      expect(
        (await own('PATCH', `/v1/installations/${second}/configuration`, { url: 'https://evil.test' })).status,
      ).toBe(403);
      expect((await own('POST', `/v1/installations/${first}/pause`)).status).toBe(403);
      expect((await own('POST', '/v1/orgs/acme/installations', { integration: 'tokens-b' })).status).toBe(403);
      expect((await own('POST', '/v1/integrations', { manifest: manifest('x', 'acme'), script: 'x' })).status).toBe(
        403,
      );
      expect((await own('POST', '/v1/orgs', { id: 'x', title: 'x' })).status).toBe(403);
      expect((await world.as(world.tokens.ada)('GET', `/v1/installations/${second}`)).body.configuration).toEqual({
        retries: 3,
      });
    });

    it('carries the manifest scopes', async () => {
      const token = await currentToken(world.platform.ctx, first);
      const row = await world.platform.ctx.db
        .selectFrom('installation_tokens')
        .select('scopes')
        .where('installation_id', '=', first)
        .where('revoked_at', 'is', null)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(row.scopes)).toEqual(['space:content:read']);
      expect(token).toMatch(/^pti_/);
    });

    it('stops working at once when rotated', async () => {
      const old = await currentToken(world.platform.ctx, first);
      expect((await world.as(world.tokens.ada)('POST', `/v1/installations/${first}/token/rotate`)).status).toBe(204);
      expect((await world.as(old)('GET', `/v1/installations/${first}`)).status).toBe(401);
      expect(
        (await world.as(await currentToken(world.platform.ctx, first))('GET', `/v1/installations/${first}`)).status,
      ).toBe(200);
    });

    it('stops working at once when its installation is removed, with those below it', async () => {
      const space = (await world.as(world.tokens.ada)('POST', `/v1/installations/${second}/spaces/acme-space`)).body.id;
      const token = await currentToken(world.platform.ctx, second);
      const spaceToken = await currentToken(world.platform.ctx, space);
      expect((await world.as(world.tokens.bob)('DELETE', `/v1/installations/${second}`)).status).toBe(403);
      expect((await world.as(world.tokens.ada)('DELETE', `/v1/installations/${second}`)).status).toBe(204);
      expect((await world.as(token)('GET', `/v1/installations/${second}`)).status).toBe(401);
      expect((await world.as(spaceToken)('GET', `/v1/installations/${space}`)).status).toBe(401);
      expect((await world.as(world.tokens.ada)('GET', `/v1/installations/${second}`)).status).toBe(404);
      expect(
        (await world.as(world.tokens.ada)('POST', '/v1/orgs/acme/installations', { integration: 'tokens-b' })).status,
      ).toBe(201);
    });
  });

  describe('authorization on every route: no token, a wrong token, another organization', () => {
    let installation: string;
    beforeAll(async () => {
      await publish(world.tokens.ada, manifest('authz', 'acme'));
      installation = (await world.as(world.tokens.ada)('POST', '/v1/orgs/acme/installations', { integration: 'authz' }))
        .body.id;
    });

    const routes: [string, string, unknown, number][] = [
      // method, path, body, status for carol (globex admin)
      ['POST', '/v1/orgs', { id: 'zz', title: 'Z' }, 403],
      ['POST', '/v1/orgs/acme/spaces', { id: 'zz', title: 'Z' }, 403],
      ['POST', '/v1/orgs/acme/sites', { id: 'zz', title: 'Z' }, 403],
      ['POST', '/v1/users', { id: 'zz', name: 'Z' }, 403],
      ['PUT', '/v1/orgs/acme/members/carol', { role: 'admin' }, 403],
      ['POST', '/v1/integrations', { manifest: manifest('authz-2', 'acme'), script: 'x' }, 403],
      ['GET', '/v1/integrations/authz', undefined, 404],
      ['POST', '/v1/orgs/acme/installations', { integration: 'authz' }, 403],
      ['POST', '/v1/installations/{id}/spaces/acme-space', undefined, 403],
      ['POST', '/v1/installations/{id}/sites/acme-site', undefined, 403],
      ['GET', '/v1/installations/{id}', undefined, 403],
      ['PATCH', '/v1/installations/{id}/configuration', { url: 'https://x.test' }, 403],
      ['POST', '/v1/installations/{id}/pause', undefined, 403],
      ['POST', '/v1/installations/{id}/resume', undefined, 403],
      ['GET', '/v1/installations/{id}/status-history', undefined, 403],
      ['POST', '/v1/installations/{id}/token/rotate', undefined, 403],
      ['DELETE', '/v1/installations/{id}', undefined, 403],
    ];
    for (const [method, template, body, otherOrgStatus] of routes) {
      it(`${method} ${template}`, async () => {
        const path = template.replace('{id}', installation);
        expect((await world.anonymous(method, path, body)).status).toBe(401);
        const wrong = await world.as('ptu_not-a-real-token')(method, path, body);
        expect(wrong.status).toBe(401);
        expect(wrong.body.error.code).toBe('unauthorized');
        expect((await world.as('Basic abc')(method, path, body)).status).toBe(401);
        expect((await world.as(world.tokens.carol)(method, path, body)).status).toBe(otherOrgStatus);
      });
    }

    it('left the installation as it was', async () => {
      const { body } = await world.as(world.tokens.ada)('GET', `/v1/installations/${installation}`);
      expect(body).toMatchObject({ status: 'pending', configuration: { retries: 3 } });
    });
  });

  it('keeps the database consistent', async () => {
    const db = world.platform.ctx.db;
    if (backend.name === 'sqlite') {
      const result = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db);
      expect(result.rows).toEqual([{ integrity_check: 'ok' }]);
      const fk = await sql`pragma foreign_key_check`.execute(db);
      expect(fk.rows).toEqual([]);
    }
    const orphans = await db
      .selectFrom('installations as child')
      .leftJoin('installations as parent', 'parent.id', 'child.parent_id')
      .select('child.id')
      .where('child.parent_id', 'is not', null)
      .where('parent.id', 'is', null)
      .execute();
    expect(orphans).toEqual([]);
  });
});
