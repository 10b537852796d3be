/** Send test event: a signed example to a webhook installation's URL, through the delivery engine like any event. */
import { randomUUID } from 'node:crypto';
import { invalid } from '../errors/domain-error.js';
import { managedInstallation } from '../installations/load.js';
import { webhookHeaders, webhookPolicy } from '../installations/webhook-configuration.js';
import type { Principal, ServiceContext } from '../types.js';
import { requestDelivery } from './deliveries.js';

/** The type of a test delivery: the delivery log and receivers tell it from real events by it. */
export const TEST_EVENT_TYPE = 'webhook_test';

/**
 * Delivers `{ eventId, type: 'webhook_test', installationId, test: true }` to the URL the
 * installation's configuration holds, with its headers, signed and retried as every delivery is
 * (under its delivery policy).
 */
export async function sendTestDelivery(ctx: ServiceContext, principal: Principal, installationId: string) {
  const row = await managedInstallation(ctx, principal, installationId, 'sending a test event');
  const configuration = JSON.parse(row.configuration) as Record<string, unknown>;
  const url = configuration.url;
  if (typeof url !== 'string' || url === '') {
    throw invalid('no_url', 'this installation has no URL to send a test event to: save a webhook URL first');
  }
  const eventId = `test_${randomUUID()}`;
  const delivery = await requestDelivery(ctx, principal, installationId, {
    url,
    eventId,
    type: TEST_EVENT_TYPE,
    payload: { eventId, type: TEST_EVENT_TYPE, installationId, test: true },
    headers: webhookHeaders(configuration),
    policy: webhookPolicy(configuration),
  });
  return { ...delivery, eventId, url };
}
