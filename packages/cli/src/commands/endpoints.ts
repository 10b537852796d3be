import type { EndpointView } from '@portico/platform';
import { resolveTarget, type ServerOptions } from '../api-target.js';
import { EXIT_OK, runCommand, usage } from '../command-error.js';
import { devInstallations } from '../dev-installations.js';
import type { Io } from '../io.js';

export interface EndpointsOptions extends ServerOptions {
  json?: boolean;
}

/** An item of GET /v1/installations/{id}/endpoints. */
type Endpoint = EndpointView;

/**
 * `portico endpoints [INSTALLATION…]`: the webhook subscriptions of installations (the configured
 * one first) and the other URLs deliveries went to, with their health (GET
 * /v1/installations/{id}/endpoints); without INSTALLATION, those of the portico dev platform's
 * installations. Exit status: 0 listed (also when there are none), 1 refused, 2 usage.
 */
export function endpoints(
  installations: string[],
  options: EndpointsOptions,
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
) {
  return runCommand('endpoints', io, async () => {
    const { client, dev } = resolveTarget(options, io, env);
    const ids = installations.length > 0 ? installations : dev ? await devInstallations(client, dev) : undefined;
    if (ids === undefined) {
      throw usage(
        'give the installation whose endpoints to list (portico endpoints INSTALLATION), or run portico dev here',
      );
    }
    const found: (Endpoint & { installationId: string })[] = [];
    for (const id of new Set(ids)) {
      const list: Endpoint[] = await client.call(
        client.portico.GET('/v1/installations/{id}/endpoints', { params: { path: { id } } }),
      );
      found.push(...list.map((endpoint) => ({ installationId: id, ...endpoint })));
    }
    if (options.json) {
      io.out(`${JSON.stringify(found)}\n`);
      return EXIT_OK;
    }
    if (found.length === 0) {
      io.err(`portico endpoints: none for ${[...new Set(ids)].join(', ')}: set a webhook URL first\n`);
      return EXIT_OK;
    }
    for (const endpoint of found) io.out(endpointLine(endpoint, new Set(ids).size > 1));
    return EXIT_OK;
  });
}

/** One endpoint on a line: id, URL, what it receives, its health. */
export function endpointLine(endpoint: Endpoint & { installationId: string }, withInstallation: boolean): string {
  const kind = !endpoint.subscribed
    ? 'not subscribed (deliveries went here)'
    : `${endpoint.fromConfiguration ? 'configured' : 'subscribed'}: ${endpoint.eventTypes.join(', ') || 'no event selected'}`;
  const extras = [
    endpoint.policy ? `policy ${endpoint.policy}` : '',
    endpoint.rateLimit !== null ? `at most ${endpoint.rateLimit} / s` : '',
    Object.keys(endpoint.headers).length > 0 ? `headers ${Object.keys(endpoint.headers).join(', ')}` : '',
  ].filter(Boolean);
  const health =
    endpoint.subscribed && !endpoint.enabled
      ? 'switched off'
      : endpoint.state === 'failing'
        ? `failing (${endpoint.consecutiveFailures} in a row)`
        : endpoint.state === 'disabled'
          ? `disabled: ${endpoint.disabledReason ?? 'it kept failing'}`
          : 'healthy';
  return `${withInstallation ? `${endpoint.installationId}  ` : ''}${endpoint.id}  ${endpoint.url}  ${kind}${extras.length ? ` (${extras.join('; ')})` : ''}  ${health}\n`;
}
