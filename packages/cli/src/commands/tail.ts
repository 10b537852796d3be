import type { DispatchView } from '@portico/platform';
import { ServerFailure } from '../api-client.js';
import { resolveTarget, type ServerOptions } from '../api-target.js';
import { CommandError, EXIT_OK, runCommand, usage } from '../command-error.js';
import { type Delivery, deliveryVersion, formatDeliveryChange } from '../delivery-lines.js';
import { SourceMaps } from '../dev/stack-traces.js';
import { devInstallations } from '../dev-installations.js';
import { formatDispatch } from '../dispatch-lines.js';
import { InstallationLabels } from '../installation-labels.js';
import type { Io } from '../io.js';
import { parseCount } from '../numbers.js';
import { readSse } from '../sse.js';
import { StopSignals } from '../stop-signals.js';
import { parseTimeArg } from '../time-arg.js';

export interface TailOptions extends ServerOptions {
  type?: string[];
  status?: string;
  since?: string;
  count?: string;
  json?: boolean;
}

/** How long to wait before connecting again after a stream ended or could not be opened. */
const RECONNECT_MS = 2000;
/** Give up after failing to connect for this long. */
const GIVE_UP_MS = 30_000;

/**
 * `portico tail [INSTALLATION…]`: the live dispatches (with the integration's logs) and
 * deliveries of installations, through GET /v1/installations/{id}/stream, until Ctrl-C (or
 * --count events). Without INSTALLATION, those of the portico dev platform of this directory.
 * Exit status: 0 when stopped, 1 when a stream was refused or lost for good, 2 usage.
 */
export function tail(
  installations: string[],
  options: TailOptions,
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
  /** Ends the command as Ctrl-C would (tests); default: SIGINT, SIGTERM, SIGHUP. */
  stop?: Promise<unknown>,
) {
  return runCommand('tail', io, async () => {
    const filter = eventFilter(options);
    const count = options.count === undefined ? undefined : parseCount(options.count, '--count', 1, 1_000_000);
    const since = options.since === undefined ? undefined : parseTimeArg(options.since, '--since');
    const { client, dev } = resolveTarget(options, io, env);
    const ids = installations.length > 0 ? installations : dev ? await devInstallations(client, dev) : undefined;
    if (ids === undefined) {
      throw usage('give the installation to follow (portico tail INSTALLATION), or run portico dev in this directory');
    }
    const labels = new InstallationLabels(client);
    const named = new Map<string, string>();
    for (const id of new Set(ids)) {
      labels.remember(await client.call(client.portico.GET('/v1/installations/{id}', { params: { path: { id } } })));
      named.set(id, await labels.label(id));
    }
    const maps = new SourceMaps(io.cwd);
    const done = new AbortController();
    let printed = 0;
    const show = (text: string) => {
      if (done.signal.aborted) return;
      io.out(text);
      printed += 1;
      if (count !== undefined && printed >= count) done.abort();
    };
    // "following" once every stream is open: what happens from then on is shown (the server's
    // stream starts where its request arrived), so nothing said after that line is missed.
    let opening = named.size;
    const opened = () => {
      if (--opening > 0) return;
      io.err(
        `portico tail: following ${[...named.values()].join(', ')} on ${client.described}${count ? ` until ${count} events` : ' (Ctrl-C stops)'}\n`,
      );
    };

    const follow = async (id: string, label: string) => {
      let lastId: string | undefined;
      let failingSince: number | undefined;
      let isOpen = false;
      const dispatches = new Set<number>();
      const deliveries = new Map<string, string>();
      while (!done.signal.aborted) {
        try {
          const query = new URLSearchParams({ types: 'dispatch,delivery' });
          if (lastId === undefined && since !== undefined) query.set('since', String(since));
          const response = await client.fetch(`/v1/installations/${encodeURIComponent(id)}/stream?${query}`, {
            headers: { accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
            signal: done.signal,
          });
          if (!response.ok || response.body === null) {
            const text = await response.text();
            let parsed: unknown;
            try {
              parsed = JSON.parse(text);
            } catch {}
            const refusal = client.refusal('GET', `/v1/installations/${id}/stream`, response.status, parsed, text);
            if (response.status < 500) throw new CommandError(refusal.message);
            throw refusal;
          }
          if (!isOpen) {
            isOpen = true;
            opened();
          }
          for await (const message of readSse(response.body, (position) => {
            lastId = position;
            failingSince = undefined;
          })) {
            failingSince = undefined;
            if (message.event === 'error') {
              const error = (JSON.parse(message.data) as { error?: { message?: string } }).error;
              throw new CommandError(`the server ended the stream of ${label}: ${error?.message ?? message.data}`);
            }
            if (message.event === 'dispatch') {
              const view = JSON.parse(message.data) as DispatchView;
              if (dispatches.has(view.id) || !filter.dispatch(view)) continue;
              dispatches.add(view.id);
              show(options.json ? line('dispatch', id, view) : formatDispatch(view, label, maps));
            } else if (message.event === 'delivery') {
              const delivery = JSON.parse(message.data) as Delivery;
              const version = deliveryVersion(delivery);
              if (deliveries.get(delivery.id) === version || !filter.delivery(delivery)) continue;
              deliveries.set(delivery.id, version);
              show(options.json ? line('delivery', id, delivery) : formatDeliveryChange(delivery, label));
            }
          }
        } catch (error) {
          if (done.signal.aborted) return;
          if (!(error instanceof ServerFailure) && !isStreamError(error)) throw error;
          failingSince ??= Date.now();
          if (Date.now() - failingSince >= GIVE_UP_MS) {
            throw new CommandError(
              `lost the stream of ${label} and could not open it again for ${GIVE_UP_MS / 1000} s: ${(error as Error).message}`,
            );
          }
        }
        if (done.signal.aborted) return;
        io.err(`portico tail: the stream of ${label} ended; connecting again in ${RECONNECT_MS / 1000} s\n`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, RECONNECT_MS);
          done.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    };

    const signals = stop === undefined ? new StopSignals(() => process.exit(130)) : undefined;
    void (stop ?? signals?.received)?.then(() => done.abort());
    try {
      await Promise.all(
        [...named].map(([id, label]) =>
          follow(id, label).catch((error) => {
            done.abort();
            throw error;
          }),
        ),
      );
    } finally {
      done.abort();
      signals?.dispose();
    }
    return EXIT_OK;
  });
}

const line = (kind: 'dispatch' | 'delivery', installationId: string, data: object) =>
  `${JSON.stringify({ kind, installationId, ...data })}\n`;

/** A fetch body that broke off (the server went away mid-stream). */
function isStreamError(error: unknown): boolean {
  return error instanceof TypeError || (error as { code?: string }).code === 'ECONNRESET';
}

const STATUSES = ['ok', 'failed', 'pending', 'delivered'];

/** What --type and --status let through. */
function eventFilter(options: TailOptions) {
  const types = new Set(
    (options.type ?? [])
      .flatMap((t) => t.split(','))
      .map((t) => t.trim())
      .filter(Boolean),
  );
  const status = options.status?.trim();
  if (status !== undefined && !STATUSES.includes(status) && !/^\d{3}$/.test(status)) {
    throw usage(
      `--status "${options.status}" is not a status: give ok, failed, pending, delivered or an HTTP status such as 500`,
    );
  }
  const typeOk = (type: string) => types.size === 0 || types.has(type);
  const dispatchOk = (view: DispatchView) => {
    const good = view.status >= 200 && view.status < 300;
    if (status === undefined) return true;
    if (status === 'ok') return good;
    if (status === 'failed') return !good && !view.skipped;
    if (status === 'pending' || status === 'delivered') return false;
    return view.status === Number(status);
  };
  const deliveryOk = (delivery: Delivery) => {
    if (status === undefined) return true;
    if (status === 'ok' || status === 'delivered') return delivery.status === 'delivered';
    if (status === 'failed' || status === 'pending') return delivery.status === status;
    return delivery.attempts.at(-1)?.status === Number(status);
  };
  return {
    dispatch: (view: DispatchView) => typeOk(view.type) && dispatchOk(view),
    delivery: (delivery: Delivery) => typeOk(delivery.type) && deliveryOk(delivery),
  };
}
