/**
 * What dispatching to an installation reads, in one query: the installation, its integration's
 * latest version, its current API token (sealed, with its scopes) and, for a space or site
 * installation, its organization installation. Four reads before (a round trip each on
 * PostgreSQL); nothing of it is cached, so a paused parent, a new version or a rotated token
 * counts at once, on every node.
 */
import type { ExpressionBuilder, Kysely } from 'kysely';
import { prepared } from '../prepared.js';
import type { Database } from '../schema.js';

type Row = Database['installations'];

export interface DispatchContext {
  installation: Row;
  latestVersion: number;
  /** The current token, sealed (ctx.box.open opens it); null when the installation has none. */
  sealedToken: string | null;
  /** That token's scopes (what an integration in this process acts with: `DispatchGrant`); null with no token. */
  tokenScopes: string[] | null;
  /**
   * The organization installation above a space or site installation, else null. Removed with it
   * or not: the deleted event of a space or site installation shows the one it was below.
   */
  parent: Row | null;
}

const forDispatch = prepared((db, id: string) =>
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

/** The installation and what its dispatch needs, or undefined when there is no such installation. */
export async function loadDispatchContext(db: Kysely<Database>, id: string): Promise<DispatchContext | undefined> {
  const found = await forDispatch.first(db, id);
  if (found === undefined) return undefined;
  const { latest_version, sealed_token, token_scopes, ...rest } = found;
  const installation = {} as Record<string, unknown>;
  const parent = {} as Record<string, unknown>;
  for (const [key, value] of Object.entries(rest)) {
    if (key.startsWith('p_')) parent[key.slice(2)] = value;
    else installation[key] = value;
  }
  return {
    installation: installation as unknown as Row,
    latestVersion: latest_version,
    sealedToken: sealed_token ?? null,
    tokenScopes: token_scopes == null ? null : (JSON.parse(token_scopes) as string[]),
    parent: parent.id == null ? null : (parent as unknown as Row),
  };
}
