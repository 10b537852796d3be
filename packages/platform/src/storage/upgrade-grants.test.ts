/**
 * A database made by the version before granted scopes (schema 21) upgrades on start, on SQLite
 * and PostgreSQL: each organization installation is granted the scopes of the version its
 * integration runs now (not those of the version it was installed at), the tokens in force below
 * it carry that grant, and nothing shows as requested.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hashToken } from '../access/tokens.js';
import { startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { backends, SECRET_KEY } from '../test-support/backends.js';
import { databaseAtSchema } from '../test-support/older-database.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const manifest = (version: number, scopes: string[]) => ({
  name: 'spy',
  title: `Spy ${version}`,
  description: 'test',
  organization: 'acme',
  visibility: 'private',
  scopes,
});

describe.each(backends)('upgrading a schema-21 database to granted scopes on $name', (backend) => {
  it('grants each installation what the version it runs asks for, and its tokens carry it', async () => {
    const { config, old, db, box } = await databaseAtSchema(backend, 21, cleanups);
    await db
      .insertInto('integrations')
      .values({
        name: 'spy',
        organization_id: 'acme',
        visibility: 'private',
        share_token: 's',
        latest_version: 2,
        created_by: 'operator',
        created_at: 1,
        updated_at: 1,
      })
      .execute();
    const versions = [
      [1, ['space:content:read']],
      [2, ['space:content:read', 'space:git:sync']],
    ] as const;
    for (const [version, scopes] of versions) {
      const text = JSON.stringify(manifest(version, [...scopes]));
      await db
        .insertInto('integration_versions')
        .values({
          integration_name: 'spy',
          version,
          manifest: text,
          manifest_source: text,
          script: '// test',
          secrets: null,
          published_by: 'operator',
          created_at: version,
          endpoint: null,
          descriptor: null,
          gitbook: null,
        })
        .execute();
    }
    const installation = (id: string, target: 'organization' | 'space', parent: string | null) => ({
      id,
      integration_name: 'spy',
      organization_id: 'acme',
      target_type: target,
      target_id: target === 'space' ? 'docs' : 'acme',
      parent_id: parent,
      status: 'active' as const,
      configuration: '{}',
      installation_key: box.seal('key'),
      space_selection: target === 'organization' ? ('selected' as const) : null,
      site_selection: target === 'organization' ? ('selected' as const) : null,
      created_by: 'operator',
      created_at: 1,
      updated_at: 1,
      uninstalled_at: null,
    });
    await db
      .insertInto('installations')
      .values(installation('inst_org', 'organization', null))
      .execute();
    await db
      .insertInto('installations')
      .values(installation('inst_space', 'space', 'inst_org'))
      .execute();
    for (const [id, revoked] of [
      ['inst_org', null],
      ['inst_space', null],
      ['inst_space_old', 1],
    ] as const) {
      await db
        .insertInto('installation_tokens')
        .values({
          token_hash: hashToken(`pti_${id}`),
          installation_id: id === 'inst_space_old' ? 'inst_space' : id,
          token: box.seal(`pti_${id}`),
          // Minted when version 1 was the latest.
          scopes: '["space:content:read"]',
          created_at: 1,
          revoked_at: revoked,
        })
        .execute();
    }
    await old.close();

    const platform = await startPlatform({ ...config, secretKey: SECRET_KEY });
    cleanups.push(() => platform.close());
    expect(platform.migrationsApplied).toContain('022_granted_scopes');
    const admin = client(platform.url, platform.adminToken);
    const both = ['space:content:read', 'space:git:sync'];
    for (const id of ['inst_org', 'inst_space']) {
      const read = await admin('GET', `/v1/installations/${id}`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.scopes).toEqual({ granted: both, requested: [] });
    }
    const tokens = await platform.ctx.db
      .selectFrom('installation_tokens')
      .select(['token_hash', 'scopes'])
      .orderBy('token_hash')
      .execute();
    const scopesOf = (id: string) =>
      JSON.parse(tokens.find((t) => t.token_hash === hashToken(`pti_${id}`))?.scopes ?? '');
    expect(scopesOf('inst_org')).toEqual(both);
    expect(scopesOf('inst_space')).toEqual(both);
    // A revoked token is left as it was.
    expect(scopesOf('inst_space_old')).toEqual(['space:content:read']);
    expect((await admin('GET', '/v1/scope-requests')).body).toEqual([]);
  });
});
