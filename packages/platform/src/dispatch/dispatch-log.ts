/** The dispatch log of an installation: each envelope sent to its integration and how it went. */
import type { Selectable } from 'kysely';
import { invalid } from '../errors/domain-error.js';
import type { LogLine } from '../hosts/host.js';
import { levelOf } from '../hosts/output.js';
import { authorizedInstallation } from '../installations/load.js';
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
 * A page of the dispatches to the installation, newest first by the time each line records (100
 * unless `limit` says, at most 200). A page continues from the `cursor` the one before it
 * answered: it names the last dispatch shown, so dispatches recorded meanwhile neither shift nor
 * repeat the older pages.
 * `system: false` leaves out the system events (`SYSTEM_EVENTS`), so a page holds `limit` of the
 * others when there are as many.
 */
export async function listDispatches(
  ctx: ServiceContext,
  principal: Principal,
  id: string,
  options: { limit?: number | undefined; cursor?: string | undefined; system?: boolean | undefined } = {},
): Promise<DispatchPage> {
  await authorizedInstallation(ctx, principal, id);
  const limit = Math.min(Math.max(options.limit ?? 100, 1), 200);
  const before = options.cursor === undefined ? undefined : cursorPlace(options.cursor);
  const rows = await dispatchPage(ctx.db, id, {
    before,
    limit: limit + 1,
    leaveOut: options.system === false ? SYSTEM_EVENTS : undefined,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    dispatches: page.map(dispatchView),
    nextCursor: rows.length > limit && last ? Buffer.from(`a${last.at}.${last.id}`).toString('base64url') : null,
  };
}

/**
 * The line a cursor names: its time and id (`a<at>.<id>`), or its id alone (`d<id>`, as cursors
 * were before the log was read by time); refuses one this API did not give.
 */
function cursorPlace(cursor: string): { id: number; at?: number } {
  const text = Buffer.from(cursor, 'base64url').toString();
  const timed = /^a(\d{1,15})\.(\d{1,15})$/.exec(text);
  if (timed) return { at: Number(timed[1]), id: Number(timed[2]) };
  const id = /^d(\d{1,15})$/.exec(text)?.[1];
  if (id === undefined)
    throw invalid(
      'invalid_cursor',
      `the cursor "${cursor}" is not one this API gave: pass the X-Next-Cursor header of the page before, or no cursor for the newest page`,
    );
  return { id: Number(id) };
}
