/**
 * What the live stream of an installation sends (GET /v1/installations/{id}/stream): its new
 * dispatches and every change of its deliveries (created, each attempt, the end), read from the
 * database, so it is right whichever node did the work. One feed per open stream, polled while it
 * is open; nothing runs while nobody listens.
 *
 * Rows are written by several nodes, and one may commit a little after another that started later,
 * so each poll reads again what changed in the last `SETTLE_MS` and sends only what it has not sent:
 * - dispatches by id, above a floor below which every row is older than that window;
 * - deliveries by `updated_at` from the start of that window (index `deliveries_changed`),
 *   each sent again whenever its `updated_at`, attempts or status differ from what was sent.
 *
 * A position (`cursor`, sent as each event's id) is `<dispatch floor>.<delivery time>`, both
 * settled: a stream given it (Last-Event-ID) sends the dispatches above the floor and the
 * deliveries changed at or after that time, so what changed in the last few seconds before it may
 * come twice (each event carries the dispatch's or the delivery's id).
 */
import type { Selectable } from 'kysely';
import { type DeliveryView, withAttempts } from '../delivery/deliveries.js';
import { type DispatchView, dispatchView } from '../dispatch/dispatch-log.js';
import { deliveriesChangedSince } from '../storage/repositories/deliveries.js';
import { dispatchesAbove, lastDispatchBefore } from '../storage/repositories/dispatches.js';
import type { Database } from '../storage/schema.js';
import type { ServiceContext } from '../types.js';

/** How long after its time a row is taken to be committed (and its changes seen). */
export const SETTLE_MS = 5000;
/** Most rows of each kind read per poll (a poll that reads this many polls again at once). */
const PAGE = 500;

export type LiveType = 'dispatch' | 'delivery';
export type LiveEvent =
  | { type: 'dispatch'; data: DispatchView; cursor: string }
  | { type: 'delivery'; data: DeliveryView; cursor: string };

export interface FeedStart {
  /** Send only what happened at or after this time (Unix ms). */
  since: number;
  /** Or resume after a cursor a stream sent (wins over `since`). */
  cursor?: string | undefined;
}

/** Reads a cursor; undefined when it is not one this API sent. */
export function parseCursor(text: string): { dispatchFloor: number; deliveryTime: number } | undefined {
  const match = /^(\d{1,15})\.(\d{1,15})$/.exec(text.trim());
  if (!match) return undefined;
  return { dispatchFloor: Number(match[1]), deliveryTime: Number(match[2]) };
}

export class LiveFeed {
  /** Every dispatch with an id up to this one was sent, or was from before the start. */
  private dispatchFloor = 0;
  /** Dispatches above the floor already read: their time, by id. */
  private readonly dispatchesSeen = new Map<number, number>();
  /** Dispatches from before this time are not sent. */
  private readonly dispatchesSince: number;
  /** Deliveries changed from this time on are read. */
  private deliveriesFrom: number;
  /** Changes before this time are not sent. */
  private readonly deliveriesSince: number;
  /** The version sent of each delivery changed in the window, and its time. */
  private readonly deliveriesSeen = new Map<string, { version: string; at: number }>();
  private started = false;
  /** Whether the last poll left rows unread (a flood): poll again at once. */
  behind = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly installationId: string,
    private readonly types: ReadonlySet<LiveType>,
    start: FeedStart,
  ) {
    const resumed = start.cursor === undefined ? undefined : parseCursor(start.cursor);
    const since = resumed?.deliveryTime ?? start.since;
    this.dispatchFloor = resumed?.dispatchFloor ?? 0;
    this.dispatchesSince = resumed ? since - SETTLE_MS : since;
    this.deliveriesSince = since;
    this.deliveriesFrom = since;
  }

  /** Where the stream is: resuming from here sends nothing it has not sent (but may send some twice). */
  get cursor(): string {
    return `${this.dispatchFloor}.${this.deliveriesFrom}`;
  }

  /** What happened since the last poll, oldest first. */
  async poll(): Promise<LiveEvent[]> {
    if (!this.started) {
      this.started = true;
      if (this.dispatchFloor === 0 && this.types.has('dispatch')) await this.findDispatchFloor();
    }
    const now = this.ctx.now();
    const none = { events: [] as LiveEvent[], full: false };
    const dispatches = this.types.has('dispatch') ? await this.pollDispatches(now) : none;
    const deliveries = this.types.has('delivery') ? await this.pollDeliveries(now) : none;
    // (The cursor's time moves on even when deliveries are not asked for.)
    if (!this.types.has('delivery')) this.deliveriesFrom = Math.max(this.deliveriesFrom, now - SETTLE_MS);
    this.behind = dispatches.full || deliveries.full;
    const events = [...dispatches.events, ...deliveries.events];
    for (const event of events) event.cursor = this.cursor;
    return events;
  }

  /** The floor for a start by time: the last dispatch before it (walked back from the newest). */
  private async findDispatchFloor() {
    const before = await lastDispatchBefore(this.ctx.db, this.installationId, this.dispatchesSince - SETTLE_MS);
    this.dispatchFloor = before?.id ?? 0;
  }

  private async pollDispatches(now: number) {
    const rows = await dispatchesAbove(this.ctx.db, this.installationId, this.dispatchFloor, PAGE);
    const events: LiveEvent[] = [];
    for (const row of rows) {
      if (this.dispatchesSeen.has(row.id)) continue;
      this.dispatchesSeen.set(row.id, row.at);
      if (row.at >= this.dispatchesSince) events.push({ type: 'dispatch', data: dispatchView(row), cursor: '' });
    }
    // The floor rises over the oldest rows read once they are settled: a row that commits late has
    // a smaller id than one read after it, and shows up above the floor until then.
    const settled = now - SETTLE_MS;
    for (const [id, at] of [...this.dispatchesSeen].sort((a, b) => a[0] - b[0])) {
      if (at > settled) break;
      this.dispatchFloor = id;
      this.dispatchesSeen.delete(id);
    }
    return { events, full: rows.length === PAGE };
  }

  private async pollDeliveries(now: number) {
    const rows = await deliveriesChangedSince(this.ctx.db, this.installationId, this.deliveriesFrom, PAGE);
    const changed: Selectable<Database['deliveries']>[] = [];
    for (const row of rows) {
      const version = `${row.updated_at}:${row.attempts}:${row.status}`;
      if (this.deliveriesSeen.get(row.id)?.version === version) continue;
      this.deliveriesSeen.set(row.id, { version, at: row.updated_at });
      if (row.updated_at >= this.deliveriesSince) changed.push(row);
    }
    const full = rows.length === PAGE;
    // Read again from the start of the window (or, after a full page, from where it stopped).
    this.deliveriesFrom = full
      ? (rows.at(-1)?.updated_at ?? this.deliveriesFrom)
      : Math.max(this.deliveriesFrom, now - SETTLE_MS);
    for (const [id, seen] of this.deliveriesSeen) if (seen.at < this.deliveriesFrom) this.deliveriesSeen.delete(id);
    const views = await withAttempts(this.ctx.db, changed);
    return { events: views.map((data): LiveEvent => ({ type: 'delivery', data, cursor: '' })), full };
  }
}
