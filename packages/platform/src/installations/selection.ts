/**
 * Selection (DESIGN.md "Routing and selection"): which spaces and sites an organization
 * installation is installed into. `all` installs it into every space (site) of the organization,
 * also those created later; `selected` into the ones named. Each selected place has its own
 * installation, created (with its setup event) or removed in the same transaction as the change.
 */
import type { Transaction } from 'kysely';
import { forbidden, invalid, notFound } from '../errors/domain-error.js';
import { checkTarget } from '../gitbook/dialect.js';
import { loadIntegration } from '../integrations/read.js';
import * as installations from '../storage/repositories/installations.js';
import { placeIdsOf, placesByIds } from '../storage/repositories/organizations.js';
import type { Database, Selection } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import { creatorOf, insertInstallation } from './install.js';
import { authorizedInstallation, lockedInstallation } from './load.js';
import { removeInstallations } from './uninstall.js';
import { fullView, type InstallationView } from './views.js';

type Kind = 'space' | 'site';

export interface SelectionPatch {
  space_selection?: { mode: Selection; spaces?: string[] | undefined } | undefined;
  site_selection?: { mode: Selection; sites?: string[] | undefined } | undefined;
}

/**
 * Changes an organization installation's selection (an admin of the organization, or the
 * operator: choosing places is managing the integration, the contract's Roles). Every place named must
 * exist in the organization; nothing changes unless the whole patch is valid.
 */
export async function setSelection(
  ctx: ServiceContext,
  principal: Principal,
  id: string,
  patch: SelectionPatch,
): Promise<InstallationView> {
  if (principal.kind === 'installation') throw forbidden('an installation token cannot change where it is installed');
  const installation = await authorizedInstallation(ctx, principal, id, 'admin', 'choosing where it is installed');
  if (installation.target_type !== 'organization') {
    throw invalid(
      'not_an_organization_installation',
      `only an organization installation has a selection; ${id} is installed in a ${installation.target_type} (its organization installation is ${installation.parent_id})`,
    );
  }
  if (patch.space_selection === undefined && patch.site_selection === undefined) {
    throw invalid('invalid_request', 'send `space_selection`, `site_selection` or both');
  }
  const wanted: { kind: Kind; mode: Selection; places: string[] | undefined }[] = [];
  if (patch.space_selection) wanted.push({ kind: 'space', ...modeAndList(patch.space_selection, 'spaces') });
  if (patch.site_selection) wanted.push({ kind: 'site', ...modeAndList(patch.site_selection, 'sites') });
  for (const { kind, places } of wanted) {
    if (places !== undefined) await checkPlaces(ctx, kind, installation.organization_id, places);
  }
  const { manifest, gitbook } = await loadIntegration(ctx, installation.integration_name);
  for (const { kind, mode, places } of wanted) {
    if (mode === 'all' || (places ?? []).length > 0) checkTarget(installation.integration_name, gitbook, kind);
  }
  const row = await ctx.db.transaction().execute(async (trx) => {
    const current = await lockedInstallation(ctx, trx, id);
    const now = ctx.now();
    for (const { kind, mode, places } of wanted) {
      const below = await installations.installedPlaces(trx, id, kind);
      const installed = new Set(below.map((r) => r.target_id));
      const target = mode === 'all' ? await placeIdsOf(trx, kind, current.organization_id) : (places ?? [...installed]);
      const keep = new Set(target);
      const removed = below.filter((r) => !keep.has(r.target_id));
      await removeInstallations(
        trx,
        removed.map((r) => r.id),
        now,
      );
      for (const place of target) {
        if (installed.has(place)) continue;
        await insertInstallation(ctx, trx, creatorOf(principal), {
          integration: current.integration_name,
          organizationId: current.organization_id,
          target: { type: kind, id: place },
          parentId: id,
          manifest,
        });
      }
      await installations.setSelectionMode(trx, id, kind, mode, now);
    }
    return installations.installationOrThrow(trx, id);
  });
  ctx.wake();
  return fullView(ctx, row);
}

function modeAndList(selection: { mode: Selection } & Record<string, unknown>, key: 'spaces' | 'sites') {
  const places = selection[key] as string[] | undefined;
  if (selection.mode === 'all' && places !== undefined) {
    throw invalid(
      'invalid_request',
      `\`mode: "all"\` selects every ${key.slice(0, -1)} of the organization; leave out \`${key}\`, or use \`mode: "selected"\` with the list`,
    );
  }
  return { mode: selection.mode, places: places === undefined ? undefined : [...new Set(places)] };
}

async function checkPlaces(ctx: ServiceContext, kind: Kind, organizationId: string, places: string[]) {
  if (places.length === 0) return;
  const found = await placesByIds(ctx.db, kind, places);
  for (const place of places) {
    const row = found.find((r) => r.id === place);
    if (!row) throw notFound(`the ${kind} ${place}`);
    if (row.organization_id !== organizationId) {
      throw forbidden(`the ${kind} ${place} belongs to another organization than this installation`);
    }
  }
}

/**
 * A new space or site of an organization: every organization installation there that selects
 * `all` of them is installed into it, in the caller's transaction (so the place never exists
 * without them).
 */
export async function installIntoNewPlace(
  ctx: ServiceContext,
  trx: Transaction<Database>,
  kind: Kind,
  organizationId: string,
  placeId: string,
): Promise<number> {
  const selecting = await installations.selectingAll(trx, organizationId, kind);
  for (const parent of selecting) {
    const { manifest } = await loadIntegration(ctx, parent.integration_name, trx);
    await insertInstallation(ctx, trx, parent.created_by, {
      integration: parent.integration_name,
      organizationId,
      target: { type: kind, id: placeId },
      parentId: parent.id,
      manifest,
    });
  }
  return selecting.length;
}
