/** The statements of integrations: their names, versions (manifest, script, secrets) and assets. */
import type { Insertable, Kysely, Transaction } from 'kysely';
import { prepared } from '../prepared.js';
import type { Database } from '../schema.js';

type Dialect = 'sqlite' | 'postgres';

export const integrationByName = prepared((db, name: string) =>
  db.selectFrom('integrations').selectAll().where('name', '=', name),
);

/** The integration named so, locked on PostgreSQL until `trx` ends. */
export function lockIntegration(trx: Transaction<Database>, dialect: Dialect, name: string) {
  return trx
    .selectFrom('integrations')
    .selectAll()
    .where('name', '=', name)
    .$if(dialect === 'postgres', (qb) => qb.forUpdate())
    .executeTakeFirst();
}

export async function setLatestVersion(
  trx: Transaction<Database>,
  name: string,
  values: { latest_version: number; visibility: Database['integrations']['visibility']; updated_at: number },
) {
  await trx.updateTable('integrations').set(values).where('name', '=', name).execute();
}

export async function insertIntegration(trx: Transaction<Database>, row: Database['integrations']) {
  await trx.insertInto('integrations').values(row).execute();
}

export async function insertVersion(trx: Transaction<Database>, row: Insertable<Database['integration_versions']>) {
  await trx.insertInto('integration_versions').values(row).execute();
}

export async function insertAssets(trx: Transaction<Database>, rows: Insertable<Database['integration_assets']>[]) {
  await trx.insertInto('integration_assets').values(rows).execute();
}

/** A version's manifest and GitBook facts. */
export function versionManifest(db: Kysely<Database>, name: string, version: number) {
  return db
    .selectFrom('integration_versions')
    .select(['manifest', 'gitbook'])
    .where('integration_name', '=', name)
    .where('version', '=', version)
    .executeTakeFirstOrThrow();
}

/**
 * Integrations with their latest manifest, by name: every one for the operator (`userId`
 * undefined); for a user, the public ones, those of their organizations, and the unlisted one
 * `share` opens.
 */
export function integrationsWithManifests(db: Kysely<Database>, userId: string | undefined, share?: string) {
  return db
    .selectFrom('integrations as i')
    .innerJoin('integration_versions as v', (join) =>
      join.onRef('v.integration_name', '=', 'i.name').onRef('v.version', '=', 'i.latest_version'),
    )
    .select(['i.name', 'i.organization_id', 'i.visibility', 'i.latest_version', 'v.manifest'])
    .$if(userId !== undefined, (qb) =>
      qb.where((eb) =>
        eb.or([
          eb('i.visibility', '=', 'public'),
          eb(
            'i.organization_id',
            'in',
            eb
              .selectFrom('memberships')
              .select('organization_id')
              .where('user_id', '=', userId ?? ''),
          ),
          ...(share !== undefined
            ? [eb.and([eb('i.visibility', '=', 'unlisted'), eb('i.share_token', '=', share)])]
            : []),
        ]),
      ),
    )
    .orderBy('i.name')
    .execute();
}

/** The assets (names) stored for a version. */
export function assetNames(db: Kysely<Database>, name: string, version: number) {
  return db
    .selectFrom('integration_assets')
    .select('asset')
    .where('integration_name', '=', name)
    .where('version', '=', version)
    .execute();
}

/** Which of these integrations have an icon in their latest version. */
export function withIcons(db: Kysely<Database>, names: string[]) {
  return db
    .selectFrom('integration_assets as a')
    .innerJoin('integrations as i', (join) =>
      join.onRef('i.name', '=', 'a.integration_name').onRef('i.latest_version', '=', 'a.version'),
    )
    .select('a.integration_name')
    .where('a.asset', '=', 'icon')
    .where('a.integration_name', 'in', names)
    .execute();
}

export function assetBytes(db: Kysely<Database>, name: string, version: number, asset: string) {
  return db
    .selectFrom('integration_assets')
    .select(['content_type', 'bytes'])
    .where('integration_name', '=', name)
    .where('version', '=', version)
    .where('asset', '=', asset)
    .executeTakeFirst();
}

/** A version's row (script, endpoint, manifest, secrets, descriptor, GitBook facts). */
export function versionRow(db: Kysely<Database>, name: string, version: number) {
  return db
    .selectFrom('integration_versions')
    .selectAll()
    .where('integration_name', '=', name)
    .where('version', '=', version)
    .executeTakeFirstOrThrow();
}

/** Stores what a version handles (its `GET /v1` answer), once learned. */
/** The event types the latest version of `name` declined (answered 406 to; its descriptor's `declined`). */
export async function declinedEvents(db: Kysely<Database>, name: string): Promise<string[]> {
  const row = await db
    .selectFrom('integration_versions as v')
    .innerJoin('integrations as i', (join) =>
      join.onRef('i.name', '=', 'v.integration_name').onRef('i.latest_version', '=', 'v.version'),
    )
    .select('v.descriptor')
    .where('i.name', '=', name)
    .executeTakeFirst();
  if (row?.descriptor == null) return [];
  const declined = (JSON.parse(row.descriptor) as { declined?: unknown }).declined;
  return Array.isArray(declined) ? declined.filter((type): type is string => typeof type === 'string') : [];
}

export async function setDescriptor(db: Kysely<Database>, name: string, version: number, descriptor: string) {
  await db
    .updateTable('integration_versions')
    .set({ descriptor })
    .where('integration_name', '=', name)
    .where('version', '=', version)
    .execute();
}

/** The manifest text of the integration's newest version, if it has one. */
export async function latestManifestSource(db: Kysely<Database>, name: string) {
  return (
    await db
      .selectFrom('integration_versions')
      .select('manifest_source')
      .where('integration_name', '=', name)
      .orderBy('version', 'desc')
      .executeTakeFirst()
  )?.manifest_source;
}
