/**
 * What the platform checks in the built-in webhook integration's configuration beyond its
 * manifest: the URL is one the delivery engine may post to, its own headers may be sent, and the
 * events offered are those of the place it is installed in (spec 6.2).
 */
import { SELECTABLE } from '@portico/webhook-integration';
import { type DeliveryPolicyName, isDeliveryPolicyName, parseHeaderLines } from '@portico/webhooks';
import type { Kysely } from 'kysely';
import { BUILTIN_ORGANIZATION } from '../builtins.js';
import { destinationProblem } from '../delivery/post-webhook.js';
import { integrationByName } from '../storage/repositories/integrations.js';
import type { Database, TargetType } from '../storage/schema.js';
import type { Configuration, ConfigurationError } from './configuration.js';

/** The built-in webhook integration (published by the operator under `portico`). */
export function isBuiltinWebhook(integration: { name: string; organization: string }): boolean {
  return integration.name === 'webhook' && integration.organization === BUILTIN_ORGANIZATION;
}

/** The name of the built-in webhook integration: its space and site installations hold subscriptions. */
export const WEBHOOK_INTEGRATION = 'webhook';

/**
 * Whether an installation of this integration may be the built-in webhook's, by its name alone
 * (integration names are unique across Portico, and the operator publishes `webhook` under
 * `portico` at every start; `portico dev` may leave the built-in out for a local integration of
 * that name: `isBuiltinWebhookIntegration` tells them apart).
 */
export function isWebhookInstallation(integrationName: string): boolean {
  return integrationName === WEBHOOK_INTEGRATION;
}

/** Whether this integration is the built-in webhook integration: its name, published by the operator. */
export async function isBuiltinWebhookIntegration(db: Kysely<Database>, integrationName: string): Promise<boolean> {
  if (!isWebhookInstallation(integrationName)) return false;
  const row = await integrationByName.first(db, integrationName);
  return row !== undefined && isBuiltinWebhook({ name: row.name, organization: row.organization_id });
}

/** A `url` the delivery engine would refuse: not absolute, not https (http only where private networks are allowed). */
export function webhookUrlProblems(patch: Configuration, allowPrivateNetwork: boolean): ConfigurationError[] {
  const url = patch.url;
  if (typeof url !== 'string') return [];
  const problem = destinationProblem(url.trim(), allowPrivateNetwork);
  if (problem === undefined) return [];
  const expected = allowPrivateNetwork ? 'an absolute https or http URL' : 'an absolute https URL';
  return [{ path: 'url', message: `\`url\` must be ${expected}, such as https://example.com/webhooks: ${problem}` }];
}

/**
 * What is wrong with `headers` (one `Name: value` per line, sent with every delivery): a line that
 * is not a header, or a header the platform sets itself (`@portico/webhooks` custom-headers.ts).
 */
export function webhookHeaderProblems(patch: Configuration): ConfigurationError[] {
  const text = patch.headers;
  if (typeof text !== 'string') return [];
  return parseHeaderLines(text).problems.map((problem) => ({
    path: 'headers',
    message: `\`headers\` (one "Name: value" per line): ${problem}`,
  }));
}

/** The headers a webhook installation's configuration holds, as name to value (none when unset). */
export function webhookHeaders(configuration: Configuration): Record<string, string> {
  return typeof configuration.headers === 'string' ? parseHeaderLines(configuration.headers).headers : {};
}

/** The delivery policy a webhook installation's configuration chooses (`delivery_policy`); undefined: the default. */
export function webhookPolicy(configuration: Configuration): DeliveryPolicyName | undefined {
  return isDeliveryPolicyName(configuration.delivery_policy) ? configuration.delivery_policy : undefined;
}

/** The events a webhook installation in this kind of place can select (none at organization level). */
export function selectableEvents(target: TargetType): string[] {
  return target === 'organization' ? [] : [...SELECTABLE[target]];
}

/** What a person should know about a webhook installation that validates: no event selected means nothing is sent. */
export function webhookWarnings(target: TargetType, configuration: Configuration): ConfigurationError[] {
  const events = selectableEvents(target);
  if (events.length === 0 || events.some((type) => configuration[type] === true)) return [];
  return [
    {
      path: events[0] as string,
      message: 'No event is selected: nothing is delivered until you select at least one event',
    },
  ];
}
