/**
 * Granted scopes (DESIGN.md "Granted scopes", decision 054): an organization installation holds
 * the scopes its organization granted when an admin installed it; the places below it share them.
 * They are the ceiling for the events routed to it, its token, its environment and its site
 * scripts. A version asking for more runs with what was granted, and the installation shows the
 * rest as requested until an admin accepts (or uninstalls); a version asking for fewer narrows the
 * grant at once. Each change of a grant owes the organization installation its setup event.
 */
import type { Transaction } from 'kysely';
import { isAlertsInstallation } from '../alerts/operator-alerts.js';
import { forbidden, invalid } from '../errors/domain-error.js';
import { loadIntegration } from '../integrations/read.js';
import * as grants from '../storage/repositories/grants.js';
import * as installations from '../storage/repositories/installations.js';
import type { Database } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import { authorizedInstallation, lockedInstallation } from './load.js';
import { owe } from './owed-events.js';

type Row = Database['installations'];

/** What an installation was granted and what its integration's latest version asks for beyond that. */
export interface ScopesView {
  granted: string[];
  requested: string[];
}

/** A stored grant (JSON text; null, a place installation's own column, grants nothing by itself). */
export function grantOf(stored: string | null | undefined): string[] {
  return stored == null ? [] : (JSON.parse(stored) as string[]);
}

/** The grant and what `asked` (the latest version's scopes) wants beyond it. */
export function scopesView(granted: readonly string[], asked: readonly string[]): ScopesView {
  return { granted: [...granted], requested: asked.filter((scope) => !granted.includes(scope)) };
}

/** The grant of an installation: its own at organization level, else its organization installation's. */
export async function grantedTo(ctx: ServiceContext, row: Row, db = ctx.db): Promise<string[]> {
  if (row.parent_id === null) return grantOf(row.granted_scopes);
  const parent = await installations.installationById.first(db, row.parent_id);
  return grantOf(parent?.granted_scopes);
}

/** The scopes of an installation (of its organization installation, for a space or site installation). */
export async function scopesOf(ctx: ServiceContext, row: Row): Promise<ScopesView> {
  const [granted, { manifest }] = await Promise.all([grantedTo(ctx, row), loadIntegration(ctx, row.integration_name)]);
  return scopesView(granted, manifest.scopes);
}

/**
 * `POST /v1/installations/{id}/scopes/accept`: an admin of the organization (or the operator)
 * grants what the latest version asks for. `scopes`, when given, are the ones the admin was shown:
 * when the version changed since, nothing is granted and the answer says what is asked now.
 */
export async function acceptScopes(
  ctx: ServiceContext,
  principal: Principal,
  id: string,
  shown?: readonly string[],
): Promise<ScopesView> {
  if (principal.kind === 'installation') {
    throw forbidden('an installation token cannot accept permissions for itself: an admin of its organization does');
  }
  const row = await authorizedInstallation(ctx, principal, id, 'admin', 'accepting new permissions');
  if (row.target_type !== 'organization') {
    throw invalid(
      'not_an_organization_installation',
      `the installation ${id} is a ${row.target_type} installation; permissions are granted to its organization installation ${row.parent_id}: accept them there`,
    );
  }
  const { changed, asked } = await ctx.db.transaction().execute(async (trx) => {
    const locked = await lockedInstallation(ctx, trx, id);
    // Read in the transaction: a version published meanwhile is the one accepted, or refused below.
    const { manifest } = await loadIntegration(ctx, row.integration_name, trx);
    const asked: string[] = [...manifest.scopes];
    const unseen = shown === undefined ? [] : asked.filter((scope) => !shown.includes(scope));
    if (unseen.length > 0) {
      throw invalid(
        'scopes_changed',
        `${row.integration_name} now asks for ${unseen.join(', ')}, which you were not shown: read the installation again and accept what it asks for now`,
      );
    }
    if (sameScopes(grantOf(locked.granted_scopes), asked)) return { changed: false, asked };
    await setGrantOf(trx, locked, asked, 'scopes_accepted', ctx.now());
    return { changed: true, asked };
  });
  if (changed) ctx.wake();
  return scopesView(asked, asked);
}

/** Sets an organization installation's grant (and its tokens' scopes), owing it its setup event. */
export async function setGrantOf(
  trx: Transaction<Database>,
  row: Row,
  granted: readonly string[],
  cause: string,
  now: number,
): Promise<void> {
  await grants.setGrant(trx, row.id, JSON.stringify(granted), now);
  await owe(trx, row, cause, now);
}

/** An installation whose grant is short of what a new version asks for. */
export interface ScopeRequest {
  installationId: string;
  integration: string;
  organization: string;
  version: number;
  granted: string[];
  requested: string[];
}

/**
 * What a new version of `integration` asking for `scopes` does to its organization installations,
 * inside the publishing transaction: each grant narrows to what the version still asks for (at
 * once: owing a setup event), and those whose grant is short of it are answered, with `fresh`
 * marking the ones the previous version (`previous`, its scopes) did not already ask that of: an
 * alert is owed them once the version is committed.
 */
export async function applyVersionScopes(
  trx: Transaction<Database>,
  integration: string,
  version: number,
  scopes: readonly string[],
  previous: readonly string[] | undefined,
  now: number,
): Promise<(ScopeRequest & { fresh: boolean })[]> {
  const requests: (ScopeRequest & { fresh: boolean })[] = [];
  for (const row of await grants.organizationInstallationsOf(trx, integration)) {
    // The platform's own alerts installations are no organization's: nobody is asked for them.
    if (isAlertsInstallation(row.id)) continue;
    const granted = grantOf(row.granted_scopes);
    const narrowed = granted.filter((scope) => scopes.includes(scope));
    if (narrowed.length !== granted.length) await setGrantOf(trx, row, narrowed, 'scopes_narrowed', now);
    const requested = scopes.filter((scope) => !narrowed.includes(scope));
    if (requested.length === 0) continue;
    const before = previous?.filter((scope) => !granted.includes(scope)) ?? [];
    requests.push({
      installationId: row.id,
      integration,
      organization: row.organization_id,
      version,
      granted: narrowed,
      requested,
      fresh: requested.some((scope) => !before.includes(scope)),
    });
  }
  return requests;
}

/** `GET /v1/scope-requests`: every organization installation whose grant is short of its integration's latest version (the operator). */
export async function scopeRequests(ctx: ServiceContext, principal: Principal): Promise<ScopeRequest[]> {
  if (principal.kind !== 'admin') throw forbidden('this route needs the operator admin token');
  const requests: ScopeRequest[] = [];
  for (const row of await grants.organizationInstallationsWithManifests(ctx.db)) {
    if (isAlertsInstallation(row.id)) continue;
    const asked = (JSON.parse(row.manifest) as { scopes: string[] }).scopes;
    const { granted, requested } = scopesView(grantOf(row.granted_scopes), asked);
    if (requested.length === 0) continue;
    requests.push({
      installationId: row.id,
      integration: row.integration_name,
      organization: row.organization_id,
      version: row.latest_version,
      granted,
      requested,
    });
  }
  return requests;
}

function sameScopes(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((scope) => b.includes(scope));
}
