/** The integrations a caller may install: the directory's list. */
import type { Manifest } from '@portico/manifest';
import { forbidden } from '../errors/domain-error.js';
import * as integrations from '../storage/repositories/integrations.js';
import type { Database } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import { assetUrl, storedIcons } from './assets.js';

export interface DirectoryEntry {
  name: string;
  title: string;
  description: string;
  icon?: string;
  organization: string;
  visibility: Database['integrations']['visibility'];
  categories: string[];
}

/**
 * What the principal may install, by name: public integrations, those of the organizations they
 * belong to (every one for the operator), and an unlisted one of another organization only when
 * `share` is its share token.
 */
export async function listIntegrations(
  ctx: ServiceContext,
  principal: Principal,
  share?: string,
): Promise<DirectoryEntry[]> {
  if (principal.kind === 'installation') throw forbidden('an installation token cannot list integrations to install');
  const rows = await integrations.integrationsWithManifests(
    ctx.db,
    principal.kind === 'user' ? principal.userId : undefined,
    share,
  );
  const icons = await storedIcons(ctx.db, rows);
  return rows.map((row) => {
    const manifest = JSON.parse(row.manifest) as Manifest;
    return {
      name: row.name,
      title: manifest.title,
      description: manifest.description,
      ...(icons.has(row.name)
        ? { icon: assetUrl(row.name, row.latest_version, 'icon', row.visibility === 'unlisted' ? share : undefined) }
        : {}),
      organization: row.organization_id,
      visibility: row.visibility,
      categories: manifest.categories ?? [],
    };
  });
}
