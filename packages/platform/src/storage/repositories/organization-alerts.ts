/**
 * An organization's alert URL (migration 016, decision 036): where alerts about its installations
 * also go, and the alerts installation whose deliveries they are.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

type Row = Database['organization_alerts'];

/** The organization's alert setting (its URL null once cleared), or undefined when none was ever set. */
export function alertSettingOf(db: Kysely<Database>, organizationId: string) {
  return db
    .selectFrom('organization_alerts')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
}

/** Sets (or clears, with a null `url`) the organization's alert URL. */
export async function saveAlertSetting(db: Kysely<Database>, row: Row): Promise<void> {
  await db
    .insertInto('organization_alerts')
    .values(row)
    .onConflict((oc) =>
      oc.column('organization_id').doUpdateSet({
        installation_id: row.installation_id,
        url: row.url,
        updated_by: row.updated_by,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}
