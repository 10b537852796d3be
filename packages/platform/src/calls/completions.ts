/**
 * Completions (decision 021): the options of a string property with a `completion_url`, asked of
 * the integration through its public fetch. The platform POSTs JSON `{ property, configuration,
 * query }` to the `completion_url` on the installation's public endpoint, with the header
 * `X-Portico-Completion: <property>` (the public endpoint removes `X-Portico-*` headers from
 * requests that come from outside, so an integration can tell the platform's calls from others).
 * The integration answers `{ options: [...] }` or the array itself; each option a string or
 * `{ value, label? }`.
 */
import { didYouMean } from '@portico/manifest';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { DomainError, invalid } from '../errors/domain-error.js';
import { type Configuration, levelOf, undeclaredProperties } from '../installations/configuration.js';
import { authorizedInstallation } from '../installations/load.js';
import { publicEndpointOf } from '../installations/views.js';
import { loadIntegration } from '../integrations/read.js';
import type { Principal, ServiceContext } from '../types.js';
import { hostFailure } from './integration-calls.js';

/** The header that marks the platform's completion calls (never passed on from outside). */
export const COMPLETION_HEADER = 'x-portico-completion';
/** Most options answered (the rest are left out, and `truncated` says so). */
export const MAX_OPTIONS = 1000;

export interface CompletionInput {
  /** The form's values, saved or not (they replace the stored ones for this call). */
  configuration?: Configuration | undefined;
  /** What the person typed so far. */
  query?: string | undefined;
}

export interface Completion {
  options: { value: string; label: string }[];
  truncated: boolean;
}

export async function complete(
  ctx: ServiceContext,
  dispatcher: Dispatcher,
  principal: Principal,
  id: string,
  property: string,
  input: CompletionInput,
): Promise<Completion> {
  const installation = await authorizedInstallation(ctx, principal, id);
  const { manifest } = await loadIntegration(ctx, installation.integration_name);
  const level = levelOf(installation.target_type);
  const properties = manifest.configurations?.[level]?.properties ?? {};
  const definition = properties[property];
  const completing = Object.entries(properties)
    .filter(([, p]) => p.type === 'string' && p.completion_url !== undefined)
    .map(([name]) => name);
  if (definition === undefined) {
    throw invalid(
      'unknown_property',
      `\`${property}\` is not a property of this integration's ${level} configuration${didYouMean(property, Object.keys(properties))}; ${completing.length ? `the ones with completions are ${completing.map((n) => `\`${n}\``).join(', ')}` : 'none has completions'}`,
    );
  }
  if (definition.type !== 'string' || definition.completion_url === undefined) {
    throw invalid(
      'no_completion',
      `\`${property}\` has no completion_url: ${definition.type === 'string' && definition.enum ? 'its options are its enum' : `it is a ${definition.type} property without options`}`,
    );
  }
  const undeclared = undeclaredProperties(manifest, level, input.configuration ?? {});
  if (undeclared.length > 0) {
    throw invalid('unknown_property', undeclared.map((e) => `configuration.${e.message}`).join('; '), {
      errors: undeclared,
    });
  }
  if (installation.status === 'paused') {
    throw new DomainError(
      'unavailable',
      'installation_paused',
      `the installation ${id} is paused; resume it to load options`,
    );
  }
  const configuration = { ...JSON.parse(installation.configuration), ...input.configuration };
  const path = definition.completion_url;
  const body = new TextEncoder().encode(JSON.stringify({ property, configuration, query: input.query ?? '' }));
  const response = await dispatcher
    .send(
      installation,
      {
        type: 'fetch',
        eventId: `completion_${Date.now().toString(36)}`,
        installationId: id,
        request: {
          method: 'POST',
          url: `${publicEndpointOf(ctx, id)}${path}`,
          headers: [
            ['content-type', 'application/json'],
            ['accept', 'application/json'],
            [COMPLETION_HEADER, property],
          ],
        },
      },
      body,
    )
    .catch(hostFailure);
  const text = new TextDecoder().decode(response.body);
  const where = `its completion_url ${path} (for \`${property}\`)`;
  if (response.status < 200 || response.status >= 300) {
    throw new DomainError(
      'integration_failed',
      'completion_failed',
      `the integration answered ${response.status} at ${where}: ${text.slice(0, 300) || '(no body)'}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidAnswer(where, `answered something that is not JSON: ${text.slice(0, 200)}`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { options?: unknown } | null)?.options;
  if (!Array.isArray(list)) {
    throw invalidAnswer(where, 'must answer { "options": [...] } or an array of options');
  }
  const options = list.slice(0, MAX_OPTIONS).map((option, index) => {
    if (typeof option === 'string') return { value: option, label: option };
    const { value, label } = (option ?? {}) as { value?: unknown; label?: unknown };
    if (typeof value === 'string' || typeof value === 'number') {
      if (label !== undefined && typeof label !== 'string') {
        throw invalidAnswer(where, `options[${index}].label must be a string`);
      }
      return { value: String(value), label: label ?? String(value) };
    }
    throw invalidAnswer(where, `options[${index}] must be a string or { "value": string, "label"?: string }`);
  });
  return { options, truncated: list.length > MAX_OPTIONS };
}

function invalidAnswer(where: string, problem: string) {
  return new DomainError('integration_failed', 'invalid_completion', `the integration's answer at ${where} ${problem}`);
}
