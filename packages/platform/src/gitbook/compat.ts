/**
 * The part of GitBook's HTTP API that integrations written for its runtime call, answered from
 * Portico's own model and authorization (DESIGN.md "the GitBook dialect"; the routes are in
 * http/compat-gitbook-routes.ts). Answers are in that API's shapes, the same as the dialect's
 * environment (gitbook-environment.ts).
 *
 * Who may do what: an installation's token may update its own organization installation and the
 * space and site installations below it (a space or site installation's token: those of its
 * organization installation), and read the spaces and sites its integration is installed in when
 * its organization granted it a scope of spaces (sites): `space:…` (`site:…`); nothing else. A person's token may do what Portico's own routes let them do.
 */
import type { Kysely } from 'kysely';
import { requireMember } from '../access/auth.js';
import { DomainError, forbidden, invalid, notFound } from '../errors/domain-error.js';
import { writeConfiguration } from '../installations/configure.js';
import { loadInstallation } from '../installations/load.js';
import { selectionsOf } from '../installations/views.js';
import { loadIntegration } from '../integrations/read.js';
import * as installations from '../storage/repositories/installations.js';
import { placeRow } from '../storage/repositories/organizations.js';
import type { Database } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import { undeclaredOf } from './dialect.js';
import { gitbookInstallation, gitbookPlaceInstallation } from './environment.js';

type Row = Database['installations'];
type Place = { type: 'space' | 'site'; id: string };

export interface InstallationUpdate {
  configuration?: Record<string, unknown> | undefined;
  externalIds?: string[] | undefined;
}

/**
 * `PATCH /v1/integrations/{name}/installations/{id}[/spaces/{space} | /sites/{site}]`: merges
 * `configuration` into the installation's (a property set to null is removed), as the integration
 * itself writes it (properties its form does not declare are kept; no setup event is owed), and
 * answers the installation in that API's shape.
 */
export async function updateInstallation(
  ctx: ServiceContext,
  principal: Principal,
  integration: string,
  installationId: string,
  place: Place | undefined,
  update: InstallationUpdate,
) {
  // An installation's token is refused before anything is read: it learns nothing of others.
  if (principal.kind === 'installation') await authorize(principal, await rootOf(ctx, principal), installationId);
  const organization = await organizationInstallation(ctx, integration, installationId);
  const target = place === undefined ? organization : await placeInstallation(ctx, organization, place);
  // A person updating an installation configures it: an admin's call (the contract's Roles).
  if (principal.kind !== 'installation') {
    await requireMember(ctx, principal, organization.organization_id, 'admin', 'changing the configuration');
  }
  if (update.externalIds !== undefined) {
    throw invalid(
      'unsupported',
      '`externalIds` is not kept by Portico yet: store the identifier in the installation’s `configuration` instead',
    );
  }
  if (update.configuration !== undefined) {
    const { gitbook } = await loadIntegration(ctx, integration);
    await writeConfiguration(ctx, target, update.configuration, {
      undeclared: undeclaredOf(gitbook),
      byIntegration: principal.kind === 'installation',
    });
  }
  const row = await loadInstallation(ctx, target.id);
  if (row.target_type !== 'organization') return gitbookPlaceInstallation(ctx, row);
  const selections = await selectionsOf(ctx.db, row);
  if (selections === undefined) throw new Error(`the installation ${row.id} has no selection`);
  return gitbookInstallation(ctx, row, selections);
}

/** `GET /v1/spaces/{space}` and `GET /v1/orgs/{org}/sites/{site}`: a space or site in that API's shape. */
export async function readPlace(ctx: ServiceContext, principal: Principal, place: Place, organizationId?: string) {
  const row = await placeRow(ctx.db, place.type, place.id);
  if (row === undefined || (organizationId !== undefined && row.organization_id !== organizationId)) {
    throw notFound(`the ${place.type} ${place.id}${organizationId !== undefined ? ` of ${organizationId}` : ''}`);
  }
  if (principal.kind === 'installation') {
    const root = await rootOf(ctx, principal);
    // Its token reads what its organization granted a scope of (DESIGN.md "Granted scopes").
    if (!principal.scopes.some((scope) => scope.startsWith(`${place.type}:`))) {
      throw forbidden(
        `an installation's token reads a ${place.type} with a ${place.type} scope its organization granted (such as ${place.type}:metadata:read); ${root.integration_name} was granted ${principal.scopes.length === 0 ? 'none' : principal.scopes.join(', ')}`,
      );
    }
    if (!(await installedIn(ctx.db, root, place))) {
      throw forbidden(
        `an installation's token may read only the spaces and sites its integration is installed in; ${root.integration_name} is not installed in the ${place.type} ${place.id}`,
      );
    }
  } else {
    await requireMember(ctx, principal, row.organization_id);
  }
  return {
    object: place.type,
    id: row.id,
    title: row.title,
    organization: row.organization_id,
    urls: placeUrls(ctx, place, row.organization_id),
  };
}

/**
 * A space's or site's `urls` in that API's shape: `location` (where this API answers it), `app`
 * (its page in Portico's dashboard) and `published`. Portico keeps no content and publishes
 * none, so `published` is that page too: integrations build links from it, and a link to the
 * place's page is the one Portico has.
 */
function placeUrls(ctx: ServiceContext, place: Place, organization: string) {
  const id = encodeURIComponent(place.id);
  const app = `${ctx.publicUrl}/${place.type}s/${id}`;
  const path = place.type === 'space' ? `/v1/spaces/${id}` : `/v1/orgs/${encodeURIComponent(organization)}/sites/${id}`;
  return { location: `${ctx.publicUrl}/compat/gitbook${path}`, app, published: app };
}

/** The organization installation `id` of `integration`, or 404 saying what was not found. */
async function organizationInstallation(ctx: ServiceContext, integration: string, id: string): Promise<Row> {
  const row = await installations.activeInstallation(ctx.db, id);
  if (row === undefined || row.integration_name !== integration) {
    throw notFound(`the installation ${id} of the integration ${integration}`);
  }
  if (row.target_type !== 'organization') {
    throw new DomainError(
      'not_found',
      'not_found',
      `the installation ${id} is a ${row.target_type} installation; reach it as /v1/integrations/${integration}/installations/${row.parent_id}/${row.target_type}s/${row.target_id}`,
    );
  }
  return row;
}

/** The space or site installation below `organization` in `place`, or 404. */
async function placeInstallation(ctx: ServiceContext, organization: Row, place: Place): Promise<Row> {
  const row = await installations.installationBelowIn(ctx.db, organization.id, place);
  if (row === undefined) {
    throw notFound(
      `an installation of ${organization.integration_name} in the ${place.type} ${place.id} (below the installation ${organization.id})`,
    );
  }
  return row;
}

/** Refuses an installation's token whose organization installation (`root`) is not `organizationId`. */
function authorize(principal: Extract<Principal, { kind: 'installation' }>, root: Row, organizationId: string): void {
  if (root.id !== organizationId) {
    const whose = root.id === principal.installationId ? root.id : `${principal.installationId} (below ${root.id})`;
    throw forbidden(
      `an installation's token may update only its own organization installation and the space and site installations below it; this token is the installation ${whose}'s, not ${organizationId}'s`,
    );
  }
}

/** The organization installation of an installation token: its own, or the one above its space or site installation. */
async function rootOf(ctx: ServiceContext, principal: Extract<Principal, { kind: 'installation' }>): Promise<Row> {
  const own = principal.installation ?? (await loadInstallation(ctx, principal.installationId));
  return own.target_type === 'organization' ? own : loadInstallation(ctx, own.parent_id ?? '');
}

/** Whether the organization installation `root` has an installation in `place`. */
async function installedIn(db: Kysely<Database>, root: Row, place: Place): Promise<boolean> {
  const found = await installations.installedBelowIn(db, root.id, place);
  return found !== undefined;
}
