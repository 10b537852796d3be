/** The operator console's reads across organizations: every user with their memberships, and endpoints in trouble. */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** Every user, by name then id. */
export function allUsers(db: Kysely<Database>) {
  return db.selectFrom('users').select(['id', 'name', 'created_at']).orderBy('name').orderBy('id').execute();
}

/** Every membership (the caller groups them by user). */
export function allMemberships(db: Kysely<Database>) {
  return db
    .selectFrom('memberships')
    .select(['user_id', 'organization_id', 'role'])
    .orderBy('organization_id')
    .execute();
}

/**
 * Endpoints of installations still installed that are disabled or failing (every attempt failed
 * since `failing_since`), with the installation, its organization and place: disabled first, then
 * the longest failing; at most `limit`.
 */
export function troubledEndpoints(db: Kysely<Database>, states: Array<'failing' | 'disabled'>, limit: number) {
  return db
    .selectFrom('endpoints as e')
    .innerJoin('installations as i', 'i.id', 'e.installation_id')
    .innerJoin('organizations as o', 'o.id', 'i.organization_id')
    .leftJoin('spaces as sp', (join) => join.onRef('sp.id', '=', 'i.target_id').on('i.target_type', '=', 'space'))
    .leftJoin('sites as si', (join) => join.onRef('si.id', '=', 'i.target_id').on('i.target_type', '=', 'site'))
    .selectAll('e')
    .select([
      'i.integration_name',
      'i.organization_id',
      'o.title as organization_title',
      'i.target_type',
      'i.target_id',
      'sp.title as space_title',
      'si.title as site_title',
    ])
    .where('i.uninstalled_at', 'is', null)
    .where('e.removed_at', 'is', null)
    .where((eb) =>
      eb.or([
        ...(states.includes('disabled') ? [eb('e.disabled_at', 'is not', null)] : []),
        ...(states.includes('failing')
          ? [eb.and([eb('e.disabled_at', 'is', null), eb('e.failing_since', 'is not', null)])]
          : []),
      ]),
    )
    .orderBy((eb) => eb.case().when('e.disabled_at', 'is not', null).then(0).else(1).end())
    .orderBy((eb) => eb.fn.coalesce('e.disabled_at', 'e.failing_since'))
    .orderBy('e.id')
    .limit(limit)
    .execute();
}
