/**
 * The statements of operator alerts (alerts/operator-alerts.ts, decision 034): the installation
 * alert deliveries belong to, and the facts an alert carries, read once its cause is known. None
 * runs on the path of a delivery that succeeds.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/**
 * Makes an alerts installation exist: an organization installation of the built-in `webhook`
 * integration in the built-in organization, its target that organization (the operator's) or
 * `targetId` (an organization's own, decision 036: its id, so it never holds another's place).
 * Answers whether it is there (false: another live installation of the webhook integration holds
 * that place, or it was uninstalled).
 */
export async function ensureAlertsInstallation(
  db: Kysely<Database>,
  row: {
    id: string;
    organizationId: string;
    integration: string;
    installationKey: string;
    now: number;
    targetId?: string;
  },
): Promise<boolean> {
  await db
    .insertInto('installations')
    .values({
      id: row.id,
      integration_name: row.integration,
      organization_id: row.organizationId,
      target_type: 'organization',
      target_id: row.targetId ?? row.organizationId,
      parent_id: null,
      status: 'active',
      configuration: '{}',
      installation_key: row.installationKey,
      // Nothing is ever selected: no space or site event is routed to it.
      space_selection: 'selected',
      site_selection: 'selected',
      created_by: 'admin',
      created_at: row.now,
      updated_at: row.now,
      uninstalled_at: null,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const found = await db
    .selectFrom('installations')
    .select('id')
    .where('id', '=', row.id)
    .where('uninstalled_at', 'is', null)
    .executeTakeFirst();
  return found !== undefined;
}

/** With each alert's facts: the alert URL of the installation's organization and its alerts installation (null: none). */
const organizationAlert = ['oa.url as org_alert_url', 'oa.installation_id as org_alert_installation'] as const;

/** A delivery that ended failed, with its installation and its endpoint as they are now. */
export async function endedDelivery(db: Kysely<Database>, deliveryId: string) {
  return db
    .selectFrom('deliveries as d')
    .innerJoin('installations as i', 'i.id', 'd.installation_id')
    .leftJoin('endpoints as e', 'e.id', 'd.endpoint_id')
    .leftJoin('organization_alerts as oa', 'oa.organization_id', 'i.organization_id')
    .select([
      'd.id',
      'd.installation_id',
      'd.event_id',
      'd.type',
      'd.url',
      'd.attempts',
      'd.status',
      'd.last_error',
      'i.integration_name',
      'i.organization_id',
      'i.target_type',
      'i.target_id',
      'e.id as endpoint_id',
      'e.disabled_at',
      'e.disabled_reason',
      'e.last_error as endpoint_last_error',
      ...organizationAlert,
    ])
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
}

/** An endpoint with its installation (undefined when it is not the installation's). */
export async function endpointWithInstallation(db: Kysely<Database>, installationId: string, endpointId: string) {
  return db
    .selectFrom('endpoints as e')
    .innerJoin('installations as i', 'i.id', 'e.installation_id')
    .leftJoin('organization_alerts as oa', 'oa.organization_id', 'i.organization_id')
    .select([
      'e.id',
      'e.url',
      'e.disabled_at',
      'e.disabled_reason',
      'e.last_error',
      'i.id as installation_id',
      'i.integration_name',
      'i.organization_id',
      'i.target_type',
      'i.target_id',
      ...organizationAlert,
    ])
    .where('e.id', '=', endpointId)
    .where('e.installation_id', '=', installationId)
    .executeTakeFirst();
}

/** An installation's facts for an alert. */
export async function installationFacts(db: Kysely<Database>, installationId: string) {
  return db
    .selectFrom('installations as i')
    .leftJoin('organization_alerts as oa', 'oa.organization_id', 'i.organization_id')
    .select([
      'i.id as installation_id',
      'i.integration_name',
      'i.organization_id',
      'i.target_type',
      'i.target_id',
      ...organizationAlert,
    ])
    .where('i.id', '=', installationId)
    .executeTakeFirst();
}
