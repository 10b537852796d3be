/**
 * What dispatching to an installation reads, in one prepared query: the installation, its
 * integration's latest version, its current token (sealed, with its scopes) and its organization
 * installation's columns (`p_…`). dispatch/dispatch-context.ts makes the dispatch context of it.
 */
import type { ExpressionBuilder } from 'kysely';
import { prepared } from '../prepared.js';
import type { Database } from '../schema.js';

type Row = Database['installations'];

export const dispatchContextRow = prepared((db, id: string) =>
  db
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
    ])
    .where('i.id', '=', id),
);

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
