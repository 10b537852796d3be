/**
 * A database from before selection and isolation (schema 3, with installations, an owed setup
 * event and a pending delivery in it) upgrades on start, on SQLite and PostgreSQL: organization
 * installations select the places they were installed into, owed rows name their integration and
 * type, and pending deliveries get their endpoint and destination, then go out.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseManifest } from '@portico/manifest';
import { afterEach, describe, expect, it } from 'vitest';
import { SecretBox } from '../access/secret-box.js';
import { hashToken } from '../access/tokens.js';
import { BUILTINS } from '../builtins.js';
import { startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { backends, SECRET_KEY } from '../test-support/backends.js';
import { until } from '../test-support/webhook-world.js';
import { openDatabase } from './database.js';
import { loadMigrations, migrate } from './migrate.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(backends)('upgrading a schema-3 database on $name', (backend) => {
  it('keeps what was installed, and what was owed goes out', async () => {
    const received: string[] = [];
    const receiver: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        received.push(JSON.parse(body).eventId);
        res.end('{}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => receiver.close(() => r())));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    const { config, cleanup } = await backend.fresh();
    cleanups.push(cleanup);
    const fullConfig = { ...config, secretKey: SECRET_KEY, allowPrivateNetwork: true };
    const old = openDatabase({ url: config.databaseUrl, sqliteFile: `${config.dataDir}/portico.db` });
    await migrate(
      old,
      loadMigrations(old.dialect).filter((m) => m.id <= 3),
    );
    const box = new SecretBox(Buffer.from(SECRET_KEY, 'base64'));
    // Schema 3 has no descriptor column: publish the built-in webhook integration as a schema-3 server did.
    await old.db
      .insertInto('organizations')
      .values({ id: 'portico', title: 'Portico', subdomain: null, created_at: 1 })
      .execute();
    await old.db
      .insertInto('integrations')
      .values({
        name: 'webhook',
        organization_id: 'portico',
        visibility: 'public',
        share_token: 's',
        latest_version: 1,
        created_by: 'operator',
        created_at: 1,
        updated_at: 1,
      })
      .execute();
    const { manifest } = BUILTINS[0] as (typeof BUILTINS)[number];
    const parsed = parseManifest(manifest, { internalPublisher: true });
    if (!parsed.ok) throw new Error('the built-in manifest does not parse');
    await old.db
      .insertInto('integration_versions')
      .values({
        integration_name: 'webhook',
        version: 1,
        manifest: JSON.stringify(parsed.manifest),
        manifest_source: manifest,
        script: '// built in',
        secrets: null,
        published_by: 'operator',
        created_at: 1,
        endpoint: null,
      } as never)
      .execute();
    await old.db
      .insertInto('organizations')
      .values({ id: 'acme', title: 'Acme', subdomain: null, created_at: 1 })
      .execute();
    await old.db
      .insertInto('spaces')
      .values({ id: 'docs', organization_id: 'acme', title: 'Docs', created_at: 1 })
      .execute();
    const installation = (id: string, target: 'organization' | 'space', targetId: string, parent: string | null) => ({
      id,
      integration_name: 'webhook',
      organization_id: 'acme',
      target_type: target,
      target_id: targetId,
      parent_id: parent,
      status: 'active' as const,
      configuration: target === 'space' ? JSON.stringify({ url, space_content_updated: true }) : '{}',
      installation_key: box.seal('key'),
      created_by: 'operator',
      created_at: 1,
      updated_at: 1,
      uninstalled_at: null,
    });
    await old.db
      .insertInto('installations')
      .values(installation('inst_org', 'organization', 'acme', null) as never)
      .execute();
    await old.db
      .insertInto('installations')
      .values(installation('inst_space', 'space', 'docs', 'inst_org') as never)
      .execute();
    for (const id of ['inst_org', 'inst_space']) {
      await old.db
        .insertInto('installation_tokens')
        .values({
          token_hash: hashToken(`pti_${id}`),
          installation_id: id,
          token: box.seal(`pti_${id}`),
          scopes: '[]',
          created_at: 1,
          revoked_at: null,
        })
        .execute();
    }
    await old.db
      .insertInto('outbox')
      .values({
        installation_id: 'inst_space',
        event: JSON.stringify({
          type: 'space_installation_setup',
          installationId: 'inst_space',
          spaceId: 'docs',
          cause: 'installed',
        }),
        created_at: 1,
        dispatched_at: null,
      } as never)
      .execute();
    await old.db
      .insertInto('deliveries')
      .values({
        id: 'dlv_old',
        installation_id: 'inst_space',
        event_id: 'evt_before_upgrade',
        type: 'space_content_updated',
        url,
        body: JSON.stringify({ eventId: 'evt_before_upgrade' }),
        status: 'pending',
        attempts: 0,
        next_attempt_at: 1,
        claimed_until: null,
        last_error: null,
        redelivery_of: null,
        created_at: 1,
        updated_at: 1,
      } as never)
      .execute();
    await old.close();

    const platform = await startPlatform(fullConfig);
    cleanups.push(() => platform.close());
    expect(platform.migrationsApplied).toEqual(
      loadMigrations(backend.name)
        .filter((m) => m.id > 3)
        .map((m) => m.name),
    );
    const admin = client(platform.url, platform.adminToken);
    const org = await admin('GET', '/v1/installations/inst_org');
    expect(org.body).toMatchObject({
      space_selection: { mode: 'selected', spaces: ['docs'] },
      site_selection: { mode: 'selected', sites: [] },
    });
    await until('the delivery from before the upgrade', () =>
      received.includes('evt_before_upgrade') ? true : undefined,
    );
    const row = await until('the delivery recorded delivered', async () => {
      const r = await platform.ctx.db
        .selectFrom('deliveries')
        .selectAll()
        .where('id', '=', 'dlv_old')
        .executeTakeFirstOrThrow();
      return r.status === 'delivered' ? r : undefined;
    });
    expect(row.destination).toBe(`http://127.0.0.1:${new URL(url).port}`);
    expect(row.endpoint_id).toMatch(/^ep_/);
    const owed = await platform.ctx.db.selectFrom('outbox').selectAll().executeTakeFirstOrThrow();
    expect(owed).toMatchObject({ integration_name: 'webhook', event_type: 'space_installation_setup' });
    await until('the owed setup event dispatched', async () => {
      const r = await platform.ctx.db.selectFrom('outbox').select('dispatched_at').executeTakeFirstOrThrow();
      return r.dispatched_at !== null ? true : undefined;
    });
    // And a new event goes once, to the space installation.
    await admin('POST', '/v1/events', {
      type: 'space_content_updated',
      spaceId: 'docs',
      revisionId: 'r',
      eventId: 'evt_after',
    });
    await until('the event after the upgrade', () => (received.includes('evt_after') ? true : undefined));
  }, 60_000);
});
