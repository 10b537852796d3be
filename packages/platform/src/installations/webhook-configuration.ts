/**
 * What the platform checks in the built-in webhook integration's configuration beyond its
 * manifest: the URL is one the delivery engine may post to, and the events offered are those of
 * the place it is installed in (spec 6.2).
 */
import { SELECTABLE } from '@portico/webhook-integration';
import { BUILTIN_ORGANIZATION } from '../builtins.js';
import { destinationProblem } from '../delivery/post-webhook.js';
import type { TargetType } from '../storage/schema.js';
import type { Configuration, ConfigurationError } from './configuration.js';

/** The built-in webhook integration (published by the operator under `portico`). */
export function isBuiltinWebhook(integration: { name: string; organization: string }): boolean {
  return integration.name === 'webhook' && integration.organization === BUILTIN_ORGANIZATION;
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
