/**
 * What dispatching to an installation reads, in one query: the installation, its integration's
 * latest version, its current API token (sealed, with its scopes), for a space or site
 * installation its organization installation, and its delivery endpoints and valid signing
 * secrets. Once five reads (a round trip each on PostgreSQL); nothing of it is cached, so a
 * paused parent, a new version, a rotated token or a disabled endpoint counts from the next
 * dispatch, on every node.
 */
import type { Kysely } from 'kysely';
import { dispatchContextRow } from '../storage/repositories/dispatch-context.js';
import type { Database } from '../storage/schema.js';
import type { DeliveryTargets, TargetEndpoint } from '../types.js';

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
  /** Its delivery endpoints and valid signing secrets (for the deliveries the dispatch asks for). */
  deliveryTargets: DeliveryTargets;
}

type Json<T> = T[] | string;

/** The installation and what its dispatch needs, or undefined when there is no such installation. */
export async function loadDispatchContext(
  db: Kysely<Database>,
  dialect: 'sqlite' | 'postgres',
  id: string,
  now: number,
): Promise<DispatchContext | undefined> {
  const found = await dispatchContextRow[dialect].first(db, id, now);
  if (found === undefined) return undefined;
  const { latest_version, sealed_token, token_scopes, endpoints, signing_secrets, ...rest } = found;
  const installation = {} as Record<string, unknown>;
  const parent = {} as Record<string, unknown>;
  for (const [key, value] of Object.entries(rest)) {
    if (key.startsWith('p_')) parent[key.slice(2)] = value;
    else installation[key] = value;
  }
  // (PostgreSQL answers the arrays as JSON values, SQLite as JSON text.)
  const parsed = <T>(value: Json<T>): T[] => (typeof value === 'string' ? (JSON.parse(value) as T[]) : value);
  const secrets = parsed(signing_secrets as Json<{ id: number; secret: string }>).sort((a, b) => b.id - a.id);
  return {
    installation: installation as unknown as Row,
    latestVersion: latest_version,
    sealedToken: sealed_token ?? null,
    tokenScopes: token_scopes == null ? null : (JSON.parse(token_scopes) as string[]),
    parent: parent.id == null ? null : (parent as unknown as Row),
    deliveryTargets: {
      endpoints: new Map(
        parsed(endpoints as Json<TargetEndpoint & { url: string }>).map(({ url, ...endpoint }) => [url, endpoint]),
      ),
      sealedSecrets: secrets.map((row) => row.secret),
    },
  };
}
