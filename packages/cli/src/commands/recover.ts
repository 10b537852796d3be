import { resolveTarget, type ServerOptions } from '../api-target.js';
import { CommandError, EXIT_FAILURE, EXIT_OK, runCommand } from '../command-error.js';
import type { Io } from '../io.js';
import { DEFAULT_WAIT_SECONDS, parseSeconds } from '../numbers.js';
import { parseTimeArg } from '../time-arg.js';

export interface RecoverOptions extends ServerOptions {
  since: string;
  until?: string;
  wait?: boolean;
  timeout?: string;
  json?: boolean;
}

interface Recovery {
  id: string;
  installationId: string;
  since: string;
  until: string;
  status: 'running' | 'done' | 'failed';
  total: number;
  done: number;
  errors: number;
  lastError: string | null;
}

const POLL_MS = 250;

/**
 * `portico recover INSTALLATION --since TIME`: redelivers every failed delivery of the
 * installation created in [since, until) that was not redelivered yet, as the server's background
 * job (POST /v1/installations/{id}/deliveries/recover); prints its id, and with --wait its progress
 * until it ends. Exit status: 0 started (with --wait: every one redelivered), 1 refused, failed or
 * some could not be redelivered, 2 usage.
 */
export function recover(installation: string, options: RecoverOptions, io: Io, env: NodeJS.ProcessEnv = process.env) {
  return runCommand('recover', io, async () => {
    const since = parseTimeArg(options.since, '--since');
    const until = options.until === undefined ? undefined : parseTimeArg(options.until, '--until');
    const timeoutMs = parseSeconds(options.timeout ?? String(DEFAULT_WAIT_SECONDS * 4), '--timeout') * 1000;
    const { client } = resolveTarget(options, io, env);
    let recovery: Recovery = await client.call(
      client.portico.POST('/v1/installations/{id}/deliveries/recover', {
        params: { path: { id: installation } },
        body: { since, ...(until !== undefined ? { until } : {}) },
      }),
    );
    if (!options.json) {
      io.out(`${recovery.id}\n`);
      io.err(
        `portico recover: redelivering the failed deliveries of ${installation} created from ${recovery.since} until ${recovery.until} (${recovery.total} found)\n`,
      );
    }
    if (!options.wait) {
      if (options.json) io.out(`${JSON.stringify(recovery)}\n`);
      return EXIT_OK;
    }
    const deadline = Date.now() + timeoutMs;
    let shown = '';
    while (recovery.status === 'running') {
      if (Date.now() >= deadline) {
        throw new CommandError(
          `${recovery.id} is still running after ${timeoutMs / 1000} s (${recovery.done} of ${recovery.total} redelivered; it goes on in the server; portico recover --wait shows no more, GET /v1/recoveries/${recovery.id} does)`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      recovery = await client.call(
        client.portico.GET('/v1/recoveries/{id}', { params: { path: { id: recovery.id } } }),
      );
      const progress = `${recovery.done + recovery.errors}/${recovery.total}`;
      if (!options.json && recovery.status === 'running' && progress !== shown) {
        shown = progress;
        io.err(`portico recover: ${recovery.done} of ${recovery.total} redelivered\n`);
      }
    }
    if (options.json) io.out(`${JSON.stringify(recovery)}\n`);
    else {
      io.err(
        `portico recover: ${recovery.status}: ${recovery.done} of ${recovery.total} failed deliveries redelivered${recovery.errors ? `, ${recovery.errors} not (their endpoint is disabled: enable it, then recover again)` : ''}${recovery.lastError ? `; last error: ${recovery.lastError}` : ''}\n`,
      );
      if (recovery.done > 0) {
        io.err(`portico recover: \`portico deliveries ${installation}\` shows how the redeliveries go\n`);
      }
    }
    return recovery.status === 'done' && recovery.errors === 0 ? EXIT_OK : EXIT_FAILURE;
  });
}
