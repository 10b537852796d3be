/**
 * The props of a configuration component written for GitBook's runtime. That platform renders an
 * installation's configuration screen with `props.installation` (the organization installation)
 * and, in a space or site, `props.spaceInstallation` / `props.siteInstallation`, each with its
 * stored `configuration`; such components read them in `initialState` (`props.installation.configuration`).
 * A block's props are the document's, given by the caller, and get nothing added.
 */
import { loadInstallation } from '../installations/load.js';
import { selectionsOf } from '../installations/views.js';
import type { Database } from '../storage/schema.js';
import type { ServiceContext } from '../types.js';
import { gitbookInstallation, gitbookPlaceInstallation } from './environment.js';

type Row = Database['installations'];

export async function configurationProps(ctx: ServiceContext, installation: Row): Promise<Record<string, unknown>> {
  const organization =
    installation.target_type === 'organization' || installation.parent_id === null
      ? installation
      : await loadInstallation(ctx, installation.parent_id);
  const selections = await selectionsOf(ctx.db, organization);
  if (selections === undefined) throw new Error(`the installation ${organization.id} has no selection`);
  const props: Record<string, unknown> = { installation: gitbookInstallation(ctx, organization, selections) };
  if (installation.target_type === 'space') props.spaceInstallation = gitbookPlaceInstallation(ctx, installation);
  if (installation.target_type === 'site') props.siteInstallation = gitbookPlaceInstallation(ctx, installation);
  return props;
}
