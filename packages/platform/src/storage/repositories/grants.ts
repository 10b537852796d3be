/**
 * The statements of granted scopes (installations/granted-scopes.ts): an organization
 * installation's grant, the tokens that carry it, and the installations an integration's new
 * version may ask more of.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../schema.js';
import { laterThan } from './installations.js';

/** Sets an organization installation's grant (a JSON array) and the scopes of the tokens in force below it. */
export async function setGrant(trx: Transaction<Database>, rootId: string, granted: string, now: number) {
  await trx
    .updateTable('installations')
    .set({ granted_scopes: granted })
    .set(laterThan(now))
    .where('id', '=', rootId)
    .execute();
  await trx
    .updateTable('installation_tokens')
    .set({ scopes: granted })
    .where('revoked_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('installation_id', '=', rootId),
        eb('installation_id', 'in', eb.selectFrom('installations').select('id').where('parent_id', '=', rootId)),
      ]),
    )
    .execute();
}

/** The live organization installations of an integration (each with its grant), oldest first. */
export function organizationInstallationsOf(db: Kysely<Database>, integration: string) {
  return db
    .selectFrom('installations')
    .selectAll()
    .where('integration_name', '=', integration)
    .where('target_type', '=', 'organization')
    .where('uninstalled_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * Every live organization installation with its integration's latest manifest (JSON text), for
 * the operator's list of scope requests; the caller keeps those whose grant is short of it.
 */
export function organizationInstallationsWithManifests(db: Kysely<Database>) {
  return db
    .selectFrom('installations as i')
    .innerJoin('integrations as g', 'g.name', 'i.integration_name')
    .innerJoin('integration_versions as v', (join) =>
      join.onRef('v.integration_name', '=', 'g.name').onRef('v.version', '=', 'g.latest_version'),
    )
    .select([
      'i.id',
      'i.integration_name',
      'i.organization_id',
      'i.granted_scopes',
      'i.status',
      'g.latest_version',
      'v.manifest',
      'v.created_at as published_at',
    ])
    .where('i.target_type', '=', 'organization')
    .where('i.uninstalled_at', 'is', null)
    .orderBy('v.created_at')
    .orderBy('i.id')
    .execute();
}
