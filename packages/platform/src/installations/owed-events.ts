/**
 * The events an installation owes itself: its setup event on every change that may need one, and
 * its deleted event when it is removed. They are written in the transaction of the change.
 */
import type { Transaction } from 'kysely';
import * as integrations from '../storage/repositories/integrations.js';
import * as outbox from '../storage/repositories/outbox.js';
import type { Database, TargetType } from '../storage/schema.js';
import { isBuiltinWebhookIntegration } from './webhook-configuration.js';

const SETUP_EVENT: Record<TargetType, string> = {
  organization: 'installation_setup',
  space: 'space_installation_setup',
  site: 'site_installation_setup',
};
export const SETUP_EVENTS: ReadonlySet<string> = new Set(Object.values(SETUP_EVENT));

/** What an installation is sent when it is removed (the dispatcher sends it although the installation is gone). */
export const DELETED_EVENT: Record<TargetType, string> = {
  organization: 'installation_deleted',
  space: 'space_installation_deleted',
  site: 'site_installation_deleted',
};
export const DELETED_EVENTS: ReadonlySet<string> = new Set(Object.values(DELETED_EVENT));

/**
 * Writes the setup event this change owes the installation into the outbox (or, for its removal,
 * its deleted event). Like every event of the installation's own, it goes out in order, one at a time.
 */
export async function owe(
  trx: Transaction<Database>,
  row: Database['installations'],
  cause: string,
  at: number,
  events = SETUP_EVENT,
) {
  // The built-in webhook integration handles no event: its subscriptions are fanned out at routing.
  if (await isBuiltinWebhookIntegration(trx, row.integration_name)) return;
  const type = events[row.target_type];
  // A version that answered 406 to its setup event (GitBook's runtime, without a handler) is not
  // sent it again on each change: the README's promise for a 406'd type.
  if (SETUP_EVENTS.has(type) && (await integrations.declinedEvents(trx, row.integration_name)).includes(type)) return;
  const event = {
    type,
    installationId: row.id,
    ...(row.target_type === 'space' ? { spaceId: row.target_id } : {}),
    ...(row.target_type === 'site' ? { siteId: row.target_id } : {}),
    cause,
  };
  await outbox.insertOwn(trx, {
    installation_id: row.id,
    integration_name: row.integration_name,
    event_type: event.type,
    event: JSON.stringify(event),
    created_at: at,
    dispatched_at: null,
  });
}
