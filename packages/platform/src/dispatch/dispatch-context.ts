/**
 * What dispatching to an installation reads, in one query: the installation, its integration's
 * latest version, its current API token (sealed, with its scopes) and, for a space or site
 * installation, its organization installation. Four reads before (a round trip each on
 * PostgreSQL); nothing of it is cached, so a paused parent, a new version or a rotated token
 * counts at once, on every node.
 */
import type { Kysely } from 'kysely';
import { dispatchContextRow } from '../storage/repositories/dispatch-context.js';
import type { Database } from '../storage/schema.js';

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

/** The installation and what its dispatch needs, or undefined when there is no such installation. */
export async function loadDispatchContext(db: Kysely<Database>, id: string): Promise<DispatchContext | undefined> {
  const found = await dispatchContextRow.first(db, id);
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
