/**
 * The environment of an envelope (spec 2.6), built fresh for each dispatch from what is stored:
 * the installation's token, configuration, status and target, the integration's secrets
 * (decrypted only into this envelope) and the installation's own key.
 */
import type { Manifest } from '@portico/manifest';
import type { Environment } from '@portico/runtime';
import type { Database } from '../storage/schema.js';
import type { ServiceContext } from './context.js';
import { currentToken } from './installations.js';

export interface StoredVersion {
  manifest: Manifest;
  version: number;
  /** Sealed JSON of secret name → value, or null. */
  secrets: string | null;
}

export async function buildEnvironment(
  ctx: ServiceContext,
  installation: Database['installations'],
  version: StoredVersion,
): Promise<Environment> {
  const publicEndpoint = `${ctx.publicUrl}/v1/installations/${installation.id}/public`;
  const base = {
    apiEndpoint: ctx.apiUrl,
    apiTokens: { installation: await currentToken(ctx, installation.id) },
    integration: { name: installation.integration_name, version: String(version.version), urls: { publicEndpoint } },
    id: installation.id,
    status: installation.status,
    configuration: JSON.parse(installation.configuration),
    urls: { publicEndpoint },
    secrets: version.secrets === null ? {} : (JSON.parse(ctx.box.open(version.secrets)) as Record<string, string>),
    installationKey: ctx.box.open(installation.installation_key),
    organization: installation.organization_id,
    externalIds: [] as string[],
  };
  switch (installation.target_type) {
    case 'organization':
      return { ...base, target: 'organization', space_selection: { mode: 'all', spaces: [] } };
    case 'space':
      return {
        ...base,
        target: 'space',
        space: installation.target_id,
        parentInstallationId: installation.parent_id ?? '',
      };
    case 'site':
      return {
        ...base,
        target: 'site',
        site: installation.target_id,
        parentInstallationId: installation.parent_id ?? '',
      };
  }
}
