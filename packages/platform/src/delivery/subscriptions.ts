/**
 * Webhook subscriptions (DESIGN.md "The pipeline's shape"): what a webhook installation in a space
 * or site delivers, and where. The configuration form edits one (its `url`, the event booleans,
 * `headers`, `delivery_policy`), written in the same transaction as the configuration edit; the
 * API (`/v1/installations/{id}/endpoints`) adds, changes and removes others. Each is an endpoint
 * with its own health; routing fans an event out to those that selected its type.
 */
import { customHeaderProblems, deliveryPolicyProblem, parseHeaderLines } from '@portico/webhooks';
import { newId } from '../access/tokens.js';
import { conflict, invalid, notFound } from '../errors/domain-error.js';
import type { Configuration } from '../installations/configuration.js';
import { managedInstallation } from '../installations/load.js';
import {
  isBuiltinWebhookIntegration,
  selectableEvents,
  webhookPolicy,
} from '../installations/webhook-configuration.js';
import * as subscriptions from '../storage/repositories/subscriptions.js';
import type { Database } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import { destinationOf, type EndpointView, endpointView } from './endpoints.js';
import { destinationProblem } from './post-webhook.js';

type Trx = subscriptions.Trx;

/** What a subscription is: its URL, the event types it selected, its own headers, its policy, whether it is on. */
export interface SubscriptionFields {
  url: string;
  eventTypes: string[];
  headers: Record<string, string>;
  policy: string | null;
  enabled: boolean;
  /** Most deliveries per second (null: none); left out, what the row has stays (the configuration has none). */
  rateLimit?: number | null;
}

/** The highest rate limit a subscription may set, in deliveries per second. */
export const MAX_RATE_LIMIT = 10_000;

/** The subscription the configuration describes (none without a URL). */
export function subscriptionOfConfiguration(
  target: Database['installations']['target_type'],
  configuration: Configuration,
): SubscriptionFields | undefined {
  const url = typeof configuration.url === 'string' ? configuration.url.trim() : '';
  if (url === '') return undefined;
  return {
    url,
    eventTypes: selectableEvents(target).filter((type) => configuration[type] === true),
    headers: typeof configuration.headers === 'string' ? parseHeaderLines(configuration.headers).headers : {},
    policy: webhookPolicy(configuration) ?? null,
    enabled: true,
  };
}

const columns = (fields: SubscriptionFields) => ({
  url: fields.url,
  destination: destinationOf(fields.url),
  event_types: JSON.stringify(fields.eventTypes),
  headers: Object.keys(fields.headers).length > 0 ? JSON.stringify(fields.headers) : null,
  policy: fields.policy,
  enabled: fields.enabled ? 1 : 0,
  ...(fields.rateLimit !== undefined ? { rate_limit: fields.rateLimit } : {}),
});

/** A new URL starts healthy: the failures of the one before are not its. */
const HEALTHY = {
  consecutive_failures: 0,
  failing_since: null,
  last_error: null,
  disabled_at: null,
  disabled_reason: null,
};

/**
 * Writes `fields` as a subscription of the installation (in `trx`): over `existing` (changing its
 * URL in place keeps its id, so what went to the old URL is redelivered to the new one), else over
 * the plain endpoint of that URL (its history kept), else as a new row. A URL another live
 * subscription has is refused with 409.
 */
async function put(
  trx: Trx,
  installationId: string,
  fields: SubscriptionFields,
  existing: subscriptions.EndpointRow | undefined,
  fromConfiguration: boolean,
  now: number,
): Promise<subscriptions.EndpointRow> {
  if (existing?.url !== fields.url) {
    const taken = await subscriptions.withUrl(trx, installationId, fields.url, 'live');
    if (taken) {
      throw conflict(
        `${fields.url} is already subscribed by the endpoint ${taken.id} of this installation: change or remove that one (PATCH or DELETE /v1/installations/${installationId}/endpoints/${taken.id})`,
        'endpoint_exists',
      );
    }
  }
  const changes = {
    ...columns(fields),
    ...(existing !== undefined && existing.url !== fields.url ? HEALTHY : {}),
    updated_at: now,
  };
  if (existing) return (await subscriptions.update(trx, existing.id, changes)) as subscriptions.EndpointRow;
  const plain = await subscriptions.withUrl(trx, installationId, fields.url, 'plain');
  const subscribed = { ...changes, subscribed: 1, from_configuration: fromConfiguration ? 1 : 0, removed_at: null };
  if (plain) return (await subscriptions.update(trx, plain.id, subscribed)) as subscriptions.EndpointRow;
  const id = newId('ep');
  await subscriptions.insert(trx, {
    id,
    installation_id: installationId,
    ...HEALTHY,
    last_success_at: null,
    last_failure_at: null,
    created_at: now,
    ...subscribed,
  });
  return (await subscriptions.liveById(trx, installationId, id)) as subscriptions.EndpointRow;
}

/**
 * Makes the configuration's subscription what `configuration` says, in the configuration edit's
 * transaction: written, changed, or removed when the URL is gone.
 */
export async function writeConfigurationSubscription(
  trx: Trx,
  installation: Pick<Database['installations'], 'id' | 'target_type'>,
  configuration: Configuration,
  now: number,
): Promise<void> {
  const fields = subscriptionOfConfiguration(installation.target_type, configuration);
  const existing = await subscriptions.configurationSubscription(trx, installation.id);
  if (fields === undefined) {
    if (existing) await subscriptions.remove(trx, installation.id, existing.id, now);
    return;
  }
  await put(trx, installation.id, fields, existing, true, now);
}

/**
 * Webhook installations made by a version before subscriptions get theirs from their configuration
 * (run at start, before routing): the plain endpoint of the URL becomes it, so its health and the
 * deliveries made to it stay with it. Answers how many were adopted.
 */
export async function adoptWebhookConfigurations(ctx: ServiceContext, integrationName: string): Promise<number> {
  const rows = await subscriptions.notAdopted(ctx.db, integrationName);
  let adopted = 0;
  for (const row of rows) {
    const configuration = JSON.parse(row.configuration) as Configuration;
    if (subscriptionOfConfiguration(row.target_type, configuration) === undefined) continue;
    await ctx.db.transaction().execute(async (trx) => {
      // (Another node may have adopted it meanwhile.)
      if (await subscriptions.configurationSubscription(trx, row.id)) return;
      await writeConfigurationSubscription(trx, row, configuration, ctx.now());
      adopted++;
    });
  }
  return adopted;
}

/** What the API may set of a subscription (all but `url` and `eventTypes` optional on create). */
export interface SubscriptionInput {
  url?: string | undefined;
  eventTypes?: string[] | undefined;
  headers?: Record<string, unknown> | undefined;
  policy?: string | null | undefined;
  enabled?: boolean | undefined;
  rateLimit?: number | null | undefined;
}

/** The installation, if it is a webhook installation in a space or site (subscriptions are theirs). */
async function webhookInstallation(ctx: ServiceContext, principal: Principal, installationId: string, action: string) {
  const installation = await managedInstallation(ctx, principal, installationId, action);
  if (
    !(await isBuiltinWebhookIntegration(ctx.db, installation.integration_name)) ||
    installation.target_type === 'organization'
  ) {
    throw invalid(
      'not_a_webhook_installation',
      `the installation ${installationId} is not a webhook installation in a space or site: only those have subscriptions (install the webhook integration into a space or site)`,
    );
  }
  return installation;
}

/** The fields after `input`, checked: every problem is said at once, with where it is. */
function checked(
  ctx: ServiceContext,
  target: Database['installations']['target_type'],
  before: SubscriptionFields | undefined,
  input: SubscriptionInput,
): SubscriptionFields {
  const problems: string[] = [];
  const url = input.url?.trim() ?? before?.url;
  if (url === undefined || url === '') problems.push('url: required, such as https://example.com/webhooks');
  else {
    const problem = destinationProblem(url, ctx.allowPrivateNetwork);
    if (problem !== undefined) problems.push(`url: ${problem}`);
  }
  const selectable = selectableEvents(target);
  const eventTypes = input.eventTypes ?? before?.eventTypes;
  if (eventTypes === undefined || eventTypes.length === 0) {
    problems.push(`eventTypes: select at least one of ${selectable.join(', ')}`);
  } else {
    const unknown = eventTypes.filter((type) => !selectable.includes(type));
    if (unknown.length > 0)
      problems.push(
        `eventTypes: ${unknown.join(', ')} cannot be selected by a ${target} installation (it can select ${selectable.join(', ')})`,
      );
  }
  const headers = input.headers ?? before?.headers ?? {};
  problems.push(...customHeaderProblems(headers).map((problem) => `headers: ${problem}`));
  const policy = input.policy === undefined ? (before?.policy ?? null) : input.policy;
  const policyProblem = policy === null ? undefined : deliveryPolicyProblem('policy', policy);
  if (policyProblem !== undefined) problems.push(policyProblem);
  const rateLimit = input.rateLimit === undefined ? (before?.rateLimit ?? null) : input.rateLimit;
  if (rateLimit !== null && !(Number.isInteger(rateLimit) && rateLimit >= 1 && rateLimit <= MAX_RATE_LIMIT))
    problems.push(
      `rateLimit: ${rateLimit} is not a whole number of deliveries per second from 1 to ${MAX_RATE_LIMIT}; null removes the limit`,
    );
  if (problems.length > 0) {
    throw invalid('invalid_subscription', `not saved: ${problems.join('; ')}`, { errors: problems });
  }
  return {
    url: url as string,
    eventTypes: [...new Set(eventTypes)],
    headers: headers as Record<string, string>,
    policy,
    enabled: input.enabled ?? before?.enabled ?? true,
    rateLimit,
  };
}

function fieldsOf(row: subscriptions.EndpointRow): SubscriptionFields {
  return {
    url: row.url,
    eventTypes: JSON.parse(row.event_types) as string[],
    headers: row.headers === null ? {} : (JSON.parse(row.headers) as Record<string, string>),
    policy: row.policy,
    enabled: Number(row.enabled) === 1,
    rateLimit: row.rate_limit === null ? null : Number(row.rate_limit),
  };
}

/**
 * The configuration's subscription is edited through the configuration only (one editor per
 * thing): it is not removed here, and a change may set only what the configuration does not hold,
 * its rate limit.
 */
function refuseConfigurations(row: subscriptions.EndpointRow, installationId: string, change?: SubscriptionInput) {
  if (Number(row.from_configuration) !== 1) return;
  const { rateLimit, ...rest } = change ?? {};
  if (rateLimit !== undefined && Object.values(rest).every((value) => value === undefined)) return;
  throw conflict(
    `the endpoint ${row.id} is the installation's configured webhook: change it with PATCH /v1/installations/${installationId}/configuration (url, the event switches, headers, delivery_policy), or pause the installation; only its rateLimit is set here`,
    'configured_endpoint',
  );
}

export async function createSubscription(
  ctx: ServiceContext,
  principal: Principal,
  installationId: string,
  input: SubscriptionInput,
): Promise<EndpointView> {
  const installation = await webhookInstallation(ctx, principal, installationId, 'subscribing a URL');
  const fields = checked(ctx, installation.target_type, undefined, input);
  const row = await ctx.db
    .transaction()
    .execute((trx) => put(trx, installationId, fields, undefined, false, ctx.now()));
  ctx.deliveries.paced(row.id, row.rate_limit);
  return endpointView(row);
}

export async function updateSubscription(
  ctx: ServiceContext,
  principal: Principal,
  installationId: string,
  id: string,
  input: SubscriptionInput,
): Promise<EndpointView> {
  const installation = await webhookInstallation(ctx, principal, installationId, 'changing a subscription');
  const row = await ctx.db.transaction().execute(async (trx) => {
    const before = await subscriptions.liveById(trx, installationId, id);
    if (!before) throw notFound(`the endpoint ${id} of the installation ${installationId}`);
    refuseConfigurations(before, installationId, input);
    const fields = checked(ctx, installation.target_type, fieldsOf(before), input);
    return put(trx, installationId, fields, before, false, ctx.now());
  });
  ctx.deliveries.paced(row.id, row.rate_limit);
  return endpointView(row);
}

export async function removeSubscription(
  ctx: ServiceContext,
  principal: Principal,
  installationId: string,
  id: string,
): Promise<void> {
  await webhookInstallation(ctx, principal, installationId, 'removing a subscription');
  await ctx.db.transaction().execute(async (trx) => {
    const before = await subscriptions.liveById(trx, installationId, id);
    if (!before) throw notFound(`the endpoint ${id} of the installation ${installationId}`);
    refuseConfigurations(before, installationId);
    await subscriptions.remove(trx, installationId, id, ctx.now());
  });
}
