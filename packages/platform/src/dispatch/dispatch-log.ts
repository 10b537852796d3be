/** The dispatch log of an installation: each envelope sent to its integration and how it went. */
import type { Selectable } from 'kysely';
import { authorizedInstallation } from '../installations/load.js';
import { latestDispatches } from '../storage/repositories/dispatches.js';
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
  logs: string[];
  at: string;
  /** Why the event was not sent to the integration (`paused`); null when it was. */
  skipped: string | null;
}

export function dispatchView(row: Selectable<Database['dispatches']>): DispatchView {
  return {
    id: row.id,
    eventId: row.event_id,
    type: row.event_type,
    host: row.host,
    status: row.status,
    durationMs: row.duration_ms,
    error: row.error,
    logs: JSON.parse(row.logs) as string[],
    at: new Date(row.at).toISOString(),
    skipped: row.skipped ?? null,
  };
}

/** The latest 100 dispatches to the installation, newest first. */
export async function listDispatches(ctx: ServiceContext, principal: Principal, id: string): Promise<DispatchView[]> {
  await authorizedInstallation(ctx, principal, id);
  const rows = await latestDispatches(ctx.db, id, 100);
  return rows.map(dispatchView);
}
