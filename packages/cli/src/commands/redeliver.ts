import { resolveTarget, type ServerOptions } from '../api-target.js';
import { CommandError, EXIT_FAILURE, EXIT_OK, runCommand } from '../command-error.js';
import { type Delivery, deliveryVersion, formatDeliveryChange } from '../delivery-lines.js';
import type { Io } from '../io.js';
import { DEFAULT_WAIT_SECONDS, parseSeconds } from '../numbers.js';

export interface RedeliverOptions extends ServerOptions {
  wait?: boolean;
  timeout?: string;
  json?: boolean;
}

const POLL_MS = 150;

/**
 * `portico redeliver DELIVERY…`: delivers each again (a new delivery with the same body and
 * eventId, POST /v1/deliveries/{id}/redeliver) and prints the new ids; with --wait, follows each
 * until it is delivered or failed. Exit status: 0 redelivered (and, with --wait, delivered), 1
 * refused or failed, 2 usage.
 */
export function redeliver(ids: string[], options: RedeliverOptions, io: Io, env: NodeJS.ProcessEnv = process.env) {
  return runCommand('redeliver', io, async () => {
    const timeoutMs = parseSeconds(options.timeout ?? String(DEFAULT_WAIT_SECONDS), '--timeout') * 1000;
    const { client } = resolveTarget(options, io, env);
    const started: Delivery[] = [];
    for (const id of ids) {
      const delivery: Delivery = await client.call(
        client.portico.POST('/v1/deliveries/{id}/redeliver', { params: { path: { id } } }),
      );
      started.push(delivery);
      if (!options.json) {
        io.out(`${delivery.id}\n`);
        io.err(
          `portico redeliver: ${id} is delivered again as ${delivery.id} (${delivery.type} ${delivery.eventId} → ${delivery.url})\n`,
        );
      }
    }
    if (!options.wait) {
      if (options.json) io.out(`${JSON.stringify(started)}\n`);
      return EXIT_OK;
    }
    const deadline = Date.now() + timeoutMs;
    const ended: Delivery[] = [];
    for (const delivery of started) {
      let printed = '';
      for (;;) {
        const now: Delivery = await client.call(
          client.portico.GET('/v1/deliveries/{id}', { params: { path: { id: delivery.id } } }),
        );
        if (!options.json && deliveryVersion(now) !== printed && now.attempts.length > 0) {
          printed = deliveryVersion(now);
          io.out(formatDeliveryChange(now));
        }
        if (now.status !== 'pending') {
          ended.push(now);
          break;
        }
        if (Date.now() >= deadline) {
          throw new CommandError(
            `${now.id} is still pending after ${timeoutMs / 1000} s (${now.attempts.length} attempts so far; --timeout SECONDS waits longer)`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    }
    if (options.json) io.out(`${JSON.stringify(ended)}\n`);
    return ended.every((d) => d.status === 'delivered') ? EXIT_OK : EXIT_FAILURE;
  });
}
