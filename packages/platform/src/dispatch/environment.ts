/**
 * The environment of an envelope (spec 2.6), built fresh for each dispatch from what is stored:
 * the installation's token, configuration, status and target, the integration's secrets
 * (decrypted only into this envelope) and the installation's own key. A space or site
 * installation's environment also carries its organization installation (`installation`), so a
 * handler reads the account-level configuration without a second call (DESIGN.md "Routing and
 * selection"). A version written for GitBook's runtime gets that runtime's shapes instead
 * (gitbook-environment.ts).
 */
import type { Manifest } from '@portico/manifest';
import type { Environment, OrganizationInstallationInfo } from '@portico/runtime';
import { notFound } from '../errors/domain-error.js';
import type { GitBookFacts } from '../gitbook/dialect.js';
import { gitbookEnvironment } from '../gitbook/environment.js';
import { loadInstallation } from '../installations/load.js';
import { currentToken } from '../installations/tokens.js';
import { publicEndpointOf, selectionsOf } from '../installations/views.js';
import type { Database } from '../storage/schema.js';
import type { ServiceContext } from '../types.js';

type Row = Database['installations'];

export interface StoredVersion {
  manifest: Manifest;
  version: number;
  /** Sealed JSON of secret name → value, or null. */
  secrets: string | null;
  /** Set for a version written for GitBook's runtime: its environment has that runtime's shapes. */
  gitbook?: GitBookFacts | undefined;
}

/** What the caller has read already (dispatch-context.ts reads it with the installation), not read again. */
export interface KnownForEnvironment {
  /** The current token, sealed; null when the installation has none. */
  sealedToken: string | null;
  /** The organization installation above a space or site installation (null: there is none). */
  parent: Row | null;
}

export async function buildEnvironment(
  ctx: ServiceContext,
  installation: Row,
  version: StoredVersion,
  known?: KnownForEnvironment,
): Promise<Environment> {
  const publicEndpoint = publicEndpointOf(ctx, installation.id);
  let token: string;
  if (known === undefined) token = await currentToken(ctx, installation.id);
  else if (known.sealedToken !== null) token = ctx.box.open(known.sealedToken);
  // Its deleted event reaches an installation whose token was revoked with it: it has none.
  else if (installation.uninstalled_at !== null) token = '';
  else throw notFound(`a token of the installation ${installation.id}`);
  const secrets = version.secrets === null ? {} : (JSON.parse(ctx.box.open(version.secrets)) as Record<string, string>);
  if (version.gitbook !== undefined) {
    const organization =
      installation.target_type === 'organization' ? installation : await parentOf(ctx, installation, known);
    const selections = await selectionsOf(ctx.db, organization);
    if (selections === undefined) throw new Error(`the installation ${organization.id} has no selection`);
    // The envelope carries it as JSON, in that runtime's shapes (Portico's SDK never reads it).
    return gitbookEnvironment(ctx, {
      installation,
      organization,
      selections,
      manifest: version.manifest,
      facts: version.gitbook,
      version: version.version,
      token,
      secrets,
    }) as unknown as Environment;
  }
  const base = {
    apiEndpoint: ctx.apiUrl,
    apiTokens: { installation: token },
    integration: { name: installation.integration_name, version: String(version.version), urls: { publicEndpoint } },
    id: installation.id,
    status: installation.status,
    configuration: JSON.parse(installation.configuration),
    urls: { publicEndpoint },
    secrets,
    installationKey: ctx.box.open(installation.installation_key),
    organization: installation.organization_id,
    externalIds: [] as string[],
  };
  if (installation.target_type === 'organization') {
    const selections = await selectionsOf(ctx.db, installation);
    if (selections === undefined) throw new Error(`the installation ${installation.id} has no selection`);
    return { ...base, target: 'organization', ...selections };
  }
  const parent = await organizationInstallation(ctx, installation, known);
  return installation.target_type === 'space'
    ? { ...base, target: 'space', space: installation.target_id, parentInstallationId: parent.id, installation: parent }
    : { ...base, target: 'site', site: installation.target_id, parentInstallationId: parent.id, installation: parent };
}

/** The organization installation above a space or site installation, as its environment shows it. */
async function organizationInstallation(
  ctx: ServiceContext,
  installation: Row,
  known: KnownForEnvironment | undefined,
): Promise<OrganizationInstallationInfo> {
  const parent = await parentOf(ctx, installation, known);
  const selections = await selectionsOf(ctx.db, parent);
  if (!selections) {
    throw new Error(`the ${installation.target_type} installation ${installation.id} has no organization installation`);
  }
  return {
    id: parent.id,
    status: parent.status,
    configuration: JSON.parse(parent.configuration),
    ...selections,
    externalIds: [],
    urls: { publicEndpoint: publicEndpointOf(ctx, parent.id) },
  };
}

/** The organization installation above a space or site installation, as read with it or read now. */
async function parentOf(ctx: ServiceContext, installation: Row, known: KnownForEnvironment | undefined): Promise<Row> {
  if (known === undefined) return loadInstallation(ctx, installation.parent_id ?? '');
  if (known.parent === null) throw notFound(`the installation ${installation.parent_id}`);
  return known.parent;
}
