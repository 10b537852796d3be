import { DELIVERY_POLICIES, DELIVERY_POLICY_NAMES, isDeliveryPolicyName } from '@portico/webhooks';
import { ServerFailure } from '../api-client.js';
import { resolveTarget, type ServerOptions } from '../api-target.js';
import { CommandError, EXIT_OK, runCommand, usage } from '../command-error.js';
import { jsonOrString } from '../event-fields.js';
import type { Io } from '../io.js';
import { withPath } from '../property-problem.js';

export interface ConfigureOptions extends ServerOptions {
  json?: boolean;
  /** A webhook installation's delivery policy: sets `delivery_policy`. */
  deliveryPolicy?: string;
}

interface ConfigurationResult {
  status: 'pending' | 'active' | 'paused';
  configuration: Record<string, unknown>;
  errors: { path: string; message: string }[];
}

/**
 * `portico configure INSTALLATION key=value…`: sets configuration properties (PATCH
 * /v1/installations/{id}/configuration): each value is read as JSON when it is JSON (`true`, `3`,
 * `null` removes the property, `"007"` keeps a string), else taken as the string it is;
 * `--delivery-policy NAME` sets a webhook installation's `delivery_policy`. Prints the
 * installation's status and what keeps it pending. Exit status: 0 saved (also when still pending),
 * 1 refused (the property the server refused named), 2 usage.
 */
export function configure(
  installation: string,
  settings: string[],
  options: ConfigureOptions,
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
) {
  return runCommand('configure', io, async () => {
    const patch: Record<string, unknown> = {};
    for (const setting of settings) {
      const equals = setting.indexOf('=');
      if (equals <= 0) {
        throw usage(
          `"${setting}" is not key=value: give each property as name=value, e.g. url=https://example.com/hook`,
        );
      }
      const key = setting.slice(0, equals);
      if (key in patch) throw usage(`${key} is set twice`);
      patch[key] = jsonOrString(setting.slice(equals + 1));
    }
    if (options.deliveryPolicy !== undefined) {
      if (!isDeliveryPolicyName(options.deliveryPolicy)) {
        const choices = DELIVERY_POLICY_NAMES.map((name) => `  ${DELIVERY_POLICIES[name].summary}`).join('\n');
        throw usage(
          `--delivery-policy must be one of ${DELIVERY_POLICY_NAMES.join(', ')}, not "${options.deliveryPolicy}":\n${choices}`,
        );
      }
      if ('delivery_policy' in patch)
        throw usage('delivery_policy is set twice: give --delivery-policy or delivery_policy=…');
      patch.delivery_policy = options.deliveryPolicy;
    }
    if (Object.keys(patch).length === 0) {
      throw usage(
        'nothing to set: give properties as name=value (e.g. url=https://example.com/hook) or --delivery-policy',
      );
    }
    const { client } = resolveTarget(options, io, env);
    let result: ConfigurationResult;
    try {
      result = await client.call(
        client.portico.PATCH('/v1/installations/{id}/configuration', {
          params: { path: { id: installation } },
          body: patch,
        }),
      );
    } catch (error) {
      if (error instanceof ServerFailure && error.status === 400) {
        const details = (error.body as { error?: { message?: string; errors?: { path?: string; message: string }[] } })
          ?.error;
        const lines = (details?.errors ?? []).map((e) => `\n  ${withPath({ path: e.path ?? '', message: e.message })}`);
        throw new CommandError(
          `the server refused the configuration of ${installation}, nothing was saved: ${details?.message ?? error.message}${lines.length > 1 ? lines.join('') : ''}`,
        );
      }
      throw error;
    }
    if (options.json) {
      io.out(`${JSON.stringify(result)}\n`);
      return EXIT_OK;
    }
    io.out(`${installation} ${result.status}\n`);
    for (const error of result.errors) {
      io.err(`portico configure: still ${result.status}: ${withPath(error)}\n`);
    }
    return EXIT_OK;
  });
}
