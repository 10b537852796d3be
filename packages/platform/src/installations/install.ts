/**
 * Installing (spec 2.1, 3; DESIGN.md "Status"): at organization level, and into a space or site
 * below the organization installation. The row, its first status, its token and the setup event
 * it owes are written in one transaction.
 */
import { randomBytes } from 'node:crypto';
import type { Manifest } from '@portico/manifest';
import type { Transaction } from 'kysely';
import { requireMember } from '../access/auth.js';
import { newId } from '../access/tokens.js';
import { conflict, forbidden, invalid, notFound } from '../errors/domain-error.js';
import { checkTarget } from '../gitbook/dialect.js';
import { loadIntegration } from '../integrations/read.js';
import { getOrganization } from '../organizations/organizations.js';
import * as installations from '../storage/repositories/installations.js';
import * as places from '../storage/repositories/organizations.js';
import type { Database, InstallationStatus, TargetType } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import { defaultConfiguration, levelOf, validateConfiguration } from './configuration.js';
import { grantOf } from './granted-scopes.js';
import { loadInstallation } from './load.js';
import { owe } from './owed-events.js';
import { mintToken } from './tokens.js';
import { fullView, type InstallationView } from './views.js';

type Row = Database['installations'];

export async function installForOrganization(
  ctx: ServiceContext,
  principal: Principal,
  organizationId: string,
  input: { integration: string; shareToken?: string | undefined; scopes?: string[] | undefined },
): Promise<InstallationView> {
  if (principal.kind === 'installation') throw forbidden('an installation token cannot install integrations');
  await getOrganization(ctx, organizationId);
  await requireMember(ctx, principal, organizationId, 'admin', 'installing an integration');
  const { row: integration, manifest } = await loadIntegration(ctx, input.integration).catch(() => {
    throw notFound(`the integration ${input.integration}`);
  });
  const own = integration.organization_id === organizationId;
  if (!own && integration.visibility === 'private') {
    // A private integration is invisible to other organizations.
    throw notFound(`the integration ${input.integration}`);
  }
  if (!own && integration.visibility === 'unlisted' && input.shareToken !== integration.share_token) {
    throw forbidden(
      `the integration ${input.integration} is unlisted: install it through its share link (send its shareToken)`,
    );
  }
  // What is granted is what the admin was shown: a version asking for more since is not installed blind.
  const unseen = input.scopes === undefined ? [] : manifest.scopes.filter((scope) => !input.scopes?.includes(scope));
  if (unseen.length > 0) {
    throw invalid(
      'scopes_changed',
      `${input.integration} now asks for ${unseen.join(', ')}, which you were not shown: read the integration again and confirm what it asks for now`,
    );
  }
  return create(ctx, principal, {
    integration: integration.name,
    organizationId,
    target: { type: 'organization', id: organizationId },
    parentId: null,
    manifest,
  });
}

export async function installInto(
  ctx: ServiceContext,
  principal: Principal,
  parentId: string,
  target: { type: 'space' | 'site'; id: string },
): Promise<InstallationView> {
  if (principal.kind === 'installation') throw forbidden('an installation token cannot install integrations');
  const parent = await loadInstallation(ctx, parentId);
  await requireMember(ctx, principal, parent.organization_id, 'admin', `installing into a ${target.type}`);
  if (parent.target_type !== 'organization') {
    throw invalid(
      'not_an_organization_installation',
      `install into a ${target.type} through the organization-level installation, not ${parentId}`,
    );
  }
  const place = await places.placeOf(ctx.db, target.type, target.id);
  if (!place) throw notFound(`the ${target.type} ${target.id}`);
  if (place.organization_id !== parent.organization_id) {
    throw forbidden(
      `the ${target.type} ${target.id} belongs to another organization than the installation ${parentId}`,
    );
  }
  const { manifest, gitbook } = await loadIntegration(ctx, parent.integration_name);
  checkTarget(parent.integration_name, gitbook, target.type);
  return create(ctx, principal, {
    integration: parent.integration_name,
    organizationId: parent.organization_id,
    target,
    parentId,
    manifest,
  });
}

export interface NewInstallation {
  integration: string;
  organizationId: string;
  target: { type: TargetType; id: string };
  parentId: string | null;
  manifest: Manifest;
}

async function create(ctx: ServiceContext, principal: Principal, input: NewInstallation): Promise<InstallationView> {
  const row = await ctx.db.transaction().execute((trx) => insertInstallation(ctx, trx, creatorOf(principal), input));
  ctx.wake();
  return fullView(ctx, row);
}

/**
 * Installs inside `trx`: the row, its first status, its token and the setup event it owes.
 * A second installation of the integration in the same place is a conflict.
 */
export async function insertInstallation(
  ctx: ServiceContext,
  trx: Transaction<Database>,
  createdBy: string,
  input: NewInstallation,
): Promise<Row> {
  const level = levelOf(input.target.type);
  const configuration = defaultConfiguration(input.manifest, level);
  const errors = validateConfiguration(input.manifest, level, configuration);
  const status: InstallationStatus = errors.length === 0 ? 'active' : 'pending';
  const now = ctx.now();
  const organization = input.target.type === 'organization';
  // Granted: at organization level, what the version asks for now (what the admin was shown); a
  // space or site installation shares its organization installation's grant.
  const granted = organization
    ? [...input.manifest.scopes]
    : grantOf((await installations.installationOrThrow(trx, input.parentId as string)).granted_scopes);
  const row: Row = {
    id: newId('inst'),
    integration_name: input.integration,
    organization_id: input.organizationId,
    target_type: input.target.type,
    target_id: input.target.id,
    parent_id: input.parentId,
    status,
    configuration: JSON.stringify(configuration),
    installation_key: ctx.box.seal(randomBytes(32).toString('base64url')),
    space_selection: organization ? 'selected' : null,
    site_selection: organization ? 'selected' : null,
    created_by: createdBy,
    created_at: now,
    updated_at: now,
    uninstalled_at: null,
    granted_scopes: organization ? JSON.stringify(granted) : null,
  };
  const existing = await installations.installedIn(trx, input.integration, input.target);
  if (existing)
    throw conflict(
      `${input.integration} is already installed in this ${input.target.type} (installation ${existing.id})`,
    );
  await installations.insertInstallation(trx, row);
  await installations.recordStatus(trx, row.id, null, status, 'installed', now);
  await mintToken(ctx, trx, row.id, granted);
  await owe(trx, row, 'installed', now);
  if (input.parentId !== null) await installations.touch(trx, input.parentId, now);
  return row;
}

/** How `created_by` names who installed: the user, or `operator`. */
export function creatorOf(principal: Principal): string {
  return principal.kind === 'user' ? principal.userId : 'operator';
}
