/** The statement of the egress log: outbound requests made by integration code through the platform. */
import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../schema.js';

export async function recordEgress(db: Kysely<Database>, row: Insertable<Database['egress']>): Promise<void> {
  await db.insertInto('egress').values(row).execute();
}
