/**
 * What repository tests of the pipeline's tables start from: the organization installation `inst`
 * of a private integration `hooks` of the organization `acme` (which `migratedDatabaseFor` makes).
 */
import type { Transaction } from 'kysely';
import { insertInstallation } from '../storage/repositories/installations.js';
import { insertIntegration } from '../storage/repositories/integrations.js';
import type { Database } from '../storage/schema.js';

export async function seedInstallation(db: Transaction<Database>): Promise<void> {
  await insertIntegration(db, {
    name: 'hooks',
    organization_id: 'acme',
    visibility: 'private',
    share_token: 't',
    latest_version: 1,
    created_by: 'ada',
    created_at: 1,
    updated_at: 1,
  });
  await insertInstallation(db, {
    id: 'inst',
    integration_name: 'hooks',
    organization_id: 'acme',
    target_type: 'organization',
    target_id: 'acme',
    parent_id: null,
    status: 'active',
    configuration: '{}',
    installation_key: 'k',
    space_selection: 'all',
    site_selection: 'all',
    created_by: 'ada',
    created_at: 1,
    updated_at: 1,
    uninstalled_at: null,
    granted_scopes: '[]',
  });
}
