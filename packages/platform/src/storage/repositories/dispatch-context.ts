/**
 * What dispatching to an installation reads, in one prepared query: the installation, its
 * integration's latest version, its current token (sealed, with its scopes), its organization
 * installation's columns (`p_…`), and its delivery endpoints and valid signing secrets (JSON
 * arrays: what a delivery asked for during the dispatch needs, so asking reads nothing more).
 * dispatch/dispatch-context.ts makes the dispatch context of it.
 */
import type { ExpressionBuilder, Kysely } from 'kysely';
import { jsonArrayFrom as postgresJsonArray } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArray } from 'kysely/helpers/sqlite';
import { prepared } from '../prepared.js';
import type { Database } from '../schema.js';

type Row = Database['installations'];

const contextRow = (jsonArrayFrom: typeof sqliteJsonArray) =>
  prepared((db, id: string, now: number) => contextQuery(db, jsonArrayFrom, id, now));

/** The dispatch context's row, per dialect (each writes its JSON arrays its own way). */
export const dispatchContextRow = { postgres: contextRow(postgresJsonArray), sqlite: contextRow(sqliteJsonArray) };

function contextQuery(db: Kysely<Database>, jsonArrayFrom: typeof sqliteJsonArray, id: string, now: number) {
  return db
    .selectFrom('installations as i')
    .innerJoin('integrations as g', 'g.name', 'i.integration_name')
    .leftJoin('installations as p', 'p.id', 'i.parent_id')
    .selectAll('i')
    .select((eb) => [
      'g.latest_version',
      currentTokenColumn(eb, 't.token').as('sealed_token'),
      currentTokenColumn(eb, 't.scopes').as('token_scopes'),
      'p.id as p_id',
      'p.integration_name as p_integration_name',
      'p.organization_id as p_organization_id',
      'p.target_type as p_target_type',
      'p.target_id as p_target_id',
      'p.parent_id as p_parent_id',
      'p.status as p_status',
      'p.configuration as p_configuration',
      'p.space_selection as p_space_selection',
      'p.site_selection as p_site_selection',
      'p.installation_key as p_installation_key',
      'p.created_at as p_created_at',
      'p.updated_at as p_updated_at',
      'p.uninstalled_at as p_uninstalled_at',
      'p.granted_scopes as p_granted_scopes',
      jsonArrayFrom(
        eb
          .selectFrom('endpoints as e')
          .select(['e.id', 'e.url', 'e.destination', 'e.disabled_at', 'e.disabled_reason'])
          .whereRef('e.installation_id', '=', 'i.id'),
      ).as('endpoints'),
      jsonArrayFrom(
        eb
          .selectFrom('signing_secrets as s')
          .select(['s.id', 's.secret'])
          .whereRef('s.installation_id', '=', 'i.id')
          .where((w) => w.or([w('s.expires_at', 'is', null), w('s.expires_at', '>', now)])),
      ).as('signing_secrets'),
    ])
    .where('i.id', '=', id);
}

/**
 * A column of the installation's current token: the newest not revoked (the hash breaks a tie, so
 * both columns come from one token).
 */
function currentTokenColumn(eb: ExpressionBuilder<Database & { i: Row }, 'i'>, column: 't.token' | 't.scopes') {
  return eb
    .selectFrom('installation_tokens as t')
    .select(column)
    .whereRef('t.installation_id', '=', 'i.id')
    .where('t.revoked_at', 'is', null)
    .orderBy('t.created_at', 'desc')
    .orderBy('t.token_hash', 'desc')
    .limit(1);
}
