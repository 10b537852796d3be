import { resolveTarget, type ServerOptions } from '../api-target.js';
import { EXIT_OK, runCommand, usage } from '../command-error.js';
import { type Delivery, deliveryTable } from '../delivery-lines.js';
import { devInstallations } from '../dev-installations.js';
import type { Io } from '../io.js';
import { parseCount } from '../numbers.js';

export interface DeliveriesOptions extends ServerOptions {
  status?: string;
  event?: string;
  limit?: string;
  json?: boolean;
}

const STATUSES = ['pending', 'delivered', 'failed'];

/**
 * `portico deliveries [INSTALLATION…]`: the webhook deliveries of installations with their
 * attempts, newest first (GET /v1/installations/{id}/deliveries); without INSTALLATION, those of
 * the portico dev platform's installations. Exit status: 0 listed (also when there are none), 1
 * refused, 2 usage.
 */
export function deliveries(
  installations: string[],
  options: DeliveriesOptions,
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
) {
  return runCommand('deliveries', io, async () => {
    if (options.status !== undefined && !STATUSES.includes(options.status)) {
      throw usage(`--status "${options.status}" is not a delivery status: give ${STATUSES.join(', ')}`);
    }
    const limit = parseCount(options.limit ?? '50', '--limit', 1, 200);
    const { client, dev } = resolveTarget(options, io, env);
    const ids = installations.length > 0 ? installations : dev ? await devInstallations(client, dev) : undefined;
    if (ids === undefined) {
      throw usage(
        'give the installation whose deliveries to list (portico deliveries INSTALLATION), or run portico dev here',
      );
    }
    const query = {
      limit,
      ...(options.status ? { status: options.status as Delivery['status'] } : {}),
      ...(options.event ? { eventId: options.event } : {}),
    };
    const found: (Delivery & { installationId: string })[] = [];
    let more = false;
    for (const id of new Set(ids)) {
      const answer = await client.callWithHeaders<Delivery[]>(
        client.portico.GET('/v1/installations/{id}/deliveries', { params: { path: { id }, query } }),
      );
      found.push(...answer.body.map((delivery) => ({ installationId: id, ...delivery })));
      if (answer.headers.get('x-next-cursor')) more = true;
    }
    found.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
    const shown = found.slice(0, limit);
    if (options.json) {
      io.out(`${JSON.stringify(shown)}\n`);
      return EXIT_OK;
    }
    const filters = [
      options.status ? `status ${options.status}` : '',
      options.event ? `event ${options.event}` : '',
    ].filter(Boolean);
    if (shown.length === 0) {
      io.err(
        `portico deliveries: none${filters.length ? ` with ${filters.join(' and ')}` : ''} for ${[...new Set(ids)].join(', ')}\n`,
      );
      return EXIT_OK;
    }
    io.out(deliveryTable(shown, { installation: new Set(ids).size > 1 }));
    if (more || found.length > shown.length) {
      io.err(
        `portico deliveries: the latest ${limit} are shown; --limit (at most 200) or --status/--event show others\n`,
      );
    }
    return EXIT_OK;
  });
}
