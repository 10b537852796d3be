/**
 * How installations are shown: the view of one (GET /v1/installations/{id}), its public endpoint,
 * the selections of an organization installation, and its status history.
 */
import type { Kysely } from 'kysely';
import { type Credentials, invalidToken, principalOf, requireRole } from '../access/auth.js';
import { forbidden, notFound } from '../errors/domain-error.js';
import { loadIntegration } from '../integrations/read.js';
import * as installations from '../storage/repositories/installations.js';
import type { Database, InstallationStatus, TargetType } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import type { Configuration } from './configuration.js';
import { grantOf, type ScopesView, scopesView } from './granted-scopes.js';
import { authorizedInstallation } from './load.js';
import { configurationFor, type Reader, readerOf } from './secret-configuration.js';

type Row = Database['installations'];
/** What an installation's view is made of. */
export type ViewRow = Pick<
  Row,
  | 'id'
  | 'integration_name'
  | 'organization_id'
  | 'target_type'
  | 'target_id'
  | 'parent_id'
  | 'status'
  | 'configuration'
  | 'space_selection'
  | 'site_selection'
  | 'created_at'
  | 'updated_at'
>;

/** Spec 2.6's `space_selection` (and our `site_selection`): every place, or the ones listed. */
export type SpaceSelection = { mode: 'all' } | { mode: 'selected'; spaces: string[] };
export type SiteSelection = { mode: 'all' } | { mode: 'selected'; sites: string[] };
export interface Selections {
  space_selection: SpaceSelection;
  site_selection: SiteSelection;
}

export interface InstallationView {
  id: string;
  integration: string;
  organization: string;
  target: { type: TargetType; id: string };
  parentId: string | null;
  status: InstallationStatus;
  configuration: Configuration;
  urls: { publicEndpoint: string };
  /**
   * What its organization granted and what its integration's latest version asks for beyond that
   * (pending until an admin accepts): in reads of one installation and its page.
   */
  scopes?: ScopesView;
  /** Organization installations only. */
  space_selection?: SpaceSelection;
  site_selection?: SiteSelection;
  createdAt: string;
}

export function view(ctx: ServiceContext, row: ViewRow, selections?: Selections): InstallationView {
  return {
    id: row.id,
    integration: row.integration_name,
    organization: row.organization_id,
    target: { type: row.target_type, id: row.target_id },
    parentId: row.parent_id,
    status: row.status,
    configuration: JSON.parse(row.configuration),
    urls: { publicEndpoint: publicEndpointOf(ctx, row.id) },
    ...selections,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/** The installation's public endpoint (spec 4.2). */
export function publicEndpointOf(ctx: ServiceContext, id: string): string {
  return `${ctx.publicUrl}/v1/installations/${id}/public`;
}

/**
 * Selections by organization installation and the time it last changed: every change below it
 * (a place installed or removed) also changes its `updated_at`, so an entry is right on every node.
 */
const selectionCache = new Map<string, Selections>();
const MAX_CACHED_SELECTIONS = 10_000;

/** The selections of an organization installation (undefined for space and site installations). */
export async function selectionsOf(db: Kysely<Database>, row: ViewRow): Promise<Selections | undefined> {
  if (row.target_type !== 'organization') return undefined;
  const key = `${row.id}@${row.updated_at}@${row.space_selection}@${row.site_selection}`;
  const cached = selectionCache.get(key);
  if (cached !== undefined) return copySelections(cached);
  const selections = await readSelections(db, row);
  if (selectionCache.size >= MAX_CACHED_SELECTIONS) selectionCache.clear();
  selectionCache.set(key, selections);
  return copySelections(selections);
}

/** A copy the caller may change without changing the cache (structuredClone costs far more). */
function copySelections({ space_selection: spaces, site_selection: sites }: Selections): Selections {
  return {
    space_selection: spaces.mode === 'all' ? { mode: 'all' } : { mode: 'selected', spaces: [...spaces.spaces] },
    site_selection: sites.mode === 'all' ? { mode: 'all' } : { mode: 'selected', sites: [...sites.sites] },
  };
}

async function readSelections(db: Kysely<Database>, row: ViewRow): Promise<Selections> {
  const listed = (kind: 'space' | 'site') =>
    row[`${kind}_selection`] === 'all' ? Promise.resolve(undefined) : installations.listedPlaces(db, row.id, kind);
  const [spaces, sites] = await Promise.all([listed('space'), listed('site')]);
  return {
    space_selection: spaces === undefined ? { mode: 'all' } : { mode: 'selected', spaces },
    site_selection: sites === undefined ? { mode: 'all' } : { mode: 'selected', sites },
  };
}

/** The view of an installation, with its selections when it is an organization installation. */
export async function fullView(ctx: ServiceContext, row: ViewRow): Promise<InstallationView> {
  return view(ctx, row, await selectionsOf(ctx.db, row));
}

/**
 * What GET /v1/installations/{id} shows: the installation (its secrets masked for a member),
 * whether it has disabled endpoints to list, and who reads it.
 */
export async function readInstallation(
  ctx: ServiceContext,
  credentials: Credentials,
  id: string,
): Promise<{ installation: InstallationView; disabledEndpoints: boolean; reader: Reader }> {
  let row: ViewRow & { disabled_endpoints: unknown; root_granted_scopes: string | null };
  let reader: Reader = 'manager';
  if (credentials.kind === 'user') {
    const found = await installations.viewForUserToken.first(ctx.db, credentials.tokenHash, id);
    if (!found) throw invalidToken();
    if (found.id === null) throw notFound(`the installation ${id}`);
    requireRole(found.member_role ?? undefined, found.organization_id as string);
    row = found as typeof row;
    reader = readerOf(found.member_role);
  } else {
    const principal = await principalOf(ctx, credentials);
    if (principal.kind === 'installation' && principal.installationId !== id)
      throw forbidden('an installation token can only reach its own installation');
    const found = await installations.viewForOthers.first(ctx.db, id);
    if (!found) throw notFound(`the installation ${id}`);
    row = found;
  }
  const [installation, { manifest }] = await Promise.all([
    fullView(ctx, row),
    loadIntegration(ctx, row.integration_name),
  ]);
  installation.configuration = configurationFor(reader, manifest, row.target_type, installation.configuration);
  installation.scopes = scopesView(grantOf(row.root_granted_scopes), manifest.scopes);
  // SQLite answers 0 or 1, PostgreSQL a boolean.
  return { installation, disabledEndpoints: Boolean(row.disabled_endpoints), reader };
}

export async function statusHistory(ctx: ServiceContext, principal: Principal, id: string) {
  await authorizedInstallation(ctx, principal, id);
  const rows = await installations.statusChanges(ctx.db, id);
  return rows.map((r) => ({ from: r.from_status, to: r.to_status, cause: r.cause, at: new Date(r.at).toISOString() }));
}
