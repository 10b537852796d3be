/**
 * The dispatch log (the Events log) of an installation: each envelope sent to its integration and
 * how it went, and for a webhook installation each delivery its subscriptions were given.
 */
import type { Selectable } from 'kysely';
import { invalid } from '../errors/domain-error.js';
import type { LogLine } from '../hosts/host.js';
import { levelOf } from '../hosts/output.js';
import { authorizedInstallation } from '../installations/load.js';
import { isWebhookInstallation } from '../installations/webhook-configuration.js';
import { attemptsOf, eventDeliveriesPage } from '../storage/repositories/deliveries.js';
import { dispatchPage } from '../storage/repositories/dispatches.js';
import type { Database } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';

export interface DispatchView {
  /** Increases with each dispatch recorded (the live stream resumes after one). */
  id: number;
  eventId: string | null;
  type: string;
  host: string;
  status: number;
  durationMs: number;
  error: string | null;
  /** What the integration wrote to `console` during the dispatch, as text (`logLines` has their levels). */
  logs: string[];
  /** The same lines with the `console` method each was written with. */
  logLines: LogLine[];
  at: string;
  /** Why the event was not sent to the integration (`paused`); null when it was. */
  skipped: string | null;
  /**
   * For an event fanned out to a webhook subscription: its delivery, which is the record (no
   * integration was called; `id` is 0, `host` is `delivery`). Null on a dispatch's line.
   */
  delivery: { id: string; url: string; status: 'pending' | 'delivered' | 'failed'; attempts: number } | null;
}

export function dispatchView(row: Selectable<Database['dispatches']>): DispatchView {
  const logLines = storedLogLines(row.logs);
  return {
    id: row.id,
    eventId: row.event_id,
    type: row.event_type,
    host: row.host,
    status: row.status,
    durationMs: row.duration_ms,
    error: row.error,
    logs: logLines.map((line) => line.message),
    logLines,
    at: new Date(row.at).toISOString(),
    skipped: row.skipped ?? null,
    delivery: null,
  };
}

/** The events log's line of a delivery: the event, and how its delivery went (its last attempt's answer). */
export function deliveryLine(
  row: Selectable<Database['deliveries']>,
  lastAttempt?: Pick<Selectable<Database['delivery_attempts']>, 'status' | 'duration_ms'>,
): DispatchView {
  return {
    id: 0,
    eventId: row.event_id,
    type: row.type,
    host: 'delivery',
    status: lastAttempt?.status ?? 0,
    durationMs: lastAttempt?.duration_ms ?? 0,
    error: row.last_error,
    logs: [],
    logLines: [],
    at: new Date(row.created_at).toISOString(),
    skipped: null,
    delivery: { id: row.id, url: row.url, status: row.status, attempts: row.attempts },
  };
}

/**
 * The lines of a dispatch as stored: `{ level, message }` objects, or plain strings in rows
 * written before levels were kept (those read as `log`).
 */
function storedLogLines(stored: string): LogLine[] {
  const lines = JSON.parse(stored) as (string | LogLine)[];
  return lines.map((line) =>
    typeof line === 'string' ? { level: 'log', message: line } : { level: levelOf(line.level), message: line.message },
  );
}

/** What the platform sends on its own account: the dashboard's renders and the setup events. */
export const SYSTEM_EVENTS: readonly string[] = [
  'ui_render',
  'installation_setup',
  'space_installation_setup',
  'site_installation_setup',
];

export interface DispatchPage {
  dispatches: DispatchView[];
  /** Where the next (older) page starts; null when this page is the last. */
  nextCursor: string | null;
}

/**
 * A page of the installation's events log, newest first by the time each line records (100 unless
 * `limit` says, at most 200): its dispatches and, for a webhook installation, the deliveries its
 * subscriptions were given (an event fanned out at ingest has no dispatch: its delivery is the
 * record), one stream ordered by time, dispatches before deliveries at the same millisecond. A page
 * continues from the `cursor` the one before it answered: it names the last line shown, so lines
 * recorded meanwhile neither shift nor repeat the older pages.
 * `system: false` leaves out the system events (`SYSTEM_EVENTS`), so a page holds `limit` of the
 * others when there are as many.
 */
export async function listDispatches(
  ctx: ServiceContext,
  principal: Principal,
  id: string,
  options: { limit?: number | undefined; cursor?: string | undefined; system?: boolean | undefined } = {},
): Promise<DispatchPage> {
  const installation = await authorizedInstallation(ctx, principal, id);
  const limit = Math.min(Math.max(options.limit ?? 100, 1), 200);
  const place = options.cursor === undefined ? undefined : cursorPlace(options.cursor);
  const rows = await dispatchPage(ctx.db, id, {
    // After a delivery's line, every dispatch at its time came before it.
    before: place && (place.kind === 'delivery' ? { at: place.at } : place),
    limit: limit + 1,
    leaveOut: options.system === false ? SYSTEM_EVENTS : undefined,
  });
  const lines: { at: number; view: () => DispatchView; cursor: string }[] = rows.map((row) => ({
    at: row.at,
    view: () => dispatchView(row),
    cursor: `a${row.at}.${row.id}`,
  }));
  if (isWebhookInstallation(installation.integration_name)) {
    const deliveries = await eventDeliveriesPage(ctx.db, id, {
      before: place && (place.kind === 'delivery' ? place : place.at === undefined ? undefined : { at: place.at + 1 }),
      limit: limit + 1,
    });
    const last = new Map<string, Pick<Database['delivery_attempts'], 'status' | 'duration_ms'>>();
    if (deliveries.length > 0) {
      const attempts = await attemptsOf(
        ctx.db,
        deliveries.map((d) => d.id),
      );
      for (const attempt of attempts) last.set(attempt.delivery_id, attempt);
    }
    lines.push(
      ...deliveries.map((row) => ({
        at: row.created_at,
        view: () => deliveryLine(row, last.get(row.id)),
        cursor: `v${row.created_at}.${row.id}`,
      })),
    );
    // Newest first; at the same time a dispatch's line before a delivery's (as the cursors read them).
    lines.sort((a, b) => b.at - a.at || (a.cursor[0] === b.cursor[0] ? 0 : a.cursor[0] === 'a' ? -1 : 1));
  }
  const page = lines.slice(0, limit);
  const lastLine = page.at(-1);
  return {
    dispatches: page.map((line) => line.view()),
    nextCursor: lines.length > limit && lastLine ? Buffer.from(lastLine.cursor).toString('base64url') : null,
  };
}

type Place = { kind: 'dispatch'; id: number; at?: number } | { kind: 'delivery'; at: number; id: string };

/**
 * The line a cursor names: a dispatch's time and id (`a<at>.<id>`, or its id alone, `d<id>`, as
 * cursors were before the log was read by time), or a delivery's (`v<at>.<id>`); refuses one this
 * API did not give.
 */
function cursorPlace(cursor: string): Place {
  const text = Buffer.from(cursor, 'base64url').toString();
  const timed = /^a(\d{1,15})\.(\d{1,15})$/.exec(text);
  if (timed) return { kind: 'dispatch', at: Number(timed[1]), id: Number(timed[2]) };
  const delivery = /^v(\d{1,15})\.([A-Za-z0-9_]{1,64})$/.exec(text);
  if (delivery) return { kind: 'delivery', at: Number(delivery[1]), id: delivery[2] as string };
  const id = /^d(\d{1,15})$/.exec(text)?.[1];
  if (id === undefined)
    throw invalid(
      'invalid_cursor',
      `the cursor "${cursor}" is not one this API gave: pass the X-Next-Cursor header of the page before, or no cursor for the newest page`,
    );
  return { kind: 'dispatch', id: Number(id) };
}
