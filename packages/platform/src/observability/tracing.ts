/**
 * OpenTelemetry traces of the event pipeline, off unless `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set (docs/decisions/035-tracing.md). One trace per
 * event: its ingest, its routing, each dispatch of it, and each attempt of each delivery it led to
 * (a delivery fanned out to a webhook subscription at routing nests under the routing).
 *
 * This file loads no OpenTelemetry package: it reads the settings and names the spans' ids. The
 * SDK and the exporter are imported (`otel-tracing.ts`) only when tracing is on, so a server
 * without the variable creates no spans and loads none of it; the pipeline's hooks are then an
 * `undefined` it skips with `?.`.
 *
 * The trace crosses the pipeline's durable hops (the outbox, another node, a restart) without
 * storage: its ids are derived from what every row already carries. The trace id is a keyed hash
 * of the event id; the ingest, routing and dispatch spans that others nest under have ids derived
 * the same way (with the installation, for a dispatch), so a node that dispatches an event or
 * attempts its delivery names the parent span without reading anything.
 */
import { createHmac, hash } from 'node:crypto';
import type { PostResult } from '../delivery/post-webhook.js';
import { ConfigError } from '../errors/config-error.js';
import type { DeliveryRow } from '../storage/repositories/delivery-queue.js';
import type { NewOutboxRow, OutboxRow } from '../storage/repositories/outbox.js';

/** What routing gave an installation for an event: an outbox row, or a delivery fanned out to its subscription. */
export type Routed = Pick<NewOutboxRow, 'installation_id' | 'event_id' | 'dispatched_at'>;

/** The tracing settings in force (from the standard OTel variables; `tracingFromEnv`). */
export interface TracingSettings {
  /** Where spans are POSTed: the OTLP/HTTP traces URL (`…/v1/traces`). */
  tracesUrl: string;
  /** OTLP over HTTP, with protobuf (the OTel default) or JSON bodies. */
  protocol: 'http/protobuf' | 'http/json';
  /** `service.name` of the spans (OTEL_SERVICE_NAME, default `portico`). */
  serviceName: string;
  /** The fraction of events traced, decided by trace id: the same on every node (default 1). */
  ratio: number;
  /** The batch span processor: how long spans wait before they are sent (ms; OTEL_BSP_SCHEDULE_DELAY, default 5000). */
  scheduledDelayMs: number;
  /** Most spans per export (OTEL_BSP_MAX_EXPORT_BATCH_SIZE, default 512). */
  maxExportBatchSize: number;
  /** Most spans waiting; more are dropped (OTEL_BSP_MAX_QUEUE_SIZE, default 2048). */
  maxQueueSize: number;
  /** How long one export may take (ms; OTEL_BSP_EXPORT_TIMEOUT, default 30000). */
  exportTimeoutMs: number;
  /**
   * Whether deliveries carry a W3C `traceparent` header naming their attempt's span, so that a
   * receiver's own traces join the event's (PORTICO_DELIVERY_TRACEPARENT=1; off by default: it
   * tells receivers a trace id).
   */
  sendTraceparent?: boolean;
}

const PROTOCOLS = new Set(['http/protobuf', 'http/json']);

/** The settings, or undefined when tracing is off (no endpoint, `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`). */
export function tracingFromEnv(env: NodeJS.ProcessEnv): TracingSettings | undefined {
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (!base && !traces) return undefined;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === 'none') return undefined;
  if (exporter && exporter !== 'otlp')
    throw new ConfigError(`OTEL_TRACES_EXPORTER must be otlp or none (Portico exports OTLP only), got "${exporter}"`);
  // The signal's own endpoint is used as it is; the base endpoint gets the signal's path (OTel spec).
  const tracesUrl = traces || `${(base as string).replace(/\/+$/, '')}/v1/traces`;
  try {
    const url = new URL(tracesUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new ConfigError(`OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL, got "${traces || base}"`);
  }
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ||
    env.OTEL_EXPORTER_OTLP_PROTOCOL ||
    'http/protobuf'
  ).trim();
  if (!PROTOCOLS.has(protocol))
    throw new ConfigError(
      `OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (no gRPC), got "${protocol}"`,
    );
  return {
    tracesUrl,
    protocol: protocol as TracingSettings['protocol'],
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'portico',
    ratio: samplerRatio(env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG),
    scheduledDelayMs: whole(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000),
    maxExportBatchSize: whole(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512),
    maxQueueSize: whole(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048),
    exportTimeoutMs: whole(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30_000),
    sendTraceparent: flag(env, 'PORTICO_DELIVERY_TRACEPARENT'),
  };
}

/**
 * The standard samplers, as the fraction of events traced. The parent-based ones are the same
 * here: an event's trace starts at ingest, and every later span follows the trace id's decision.
 */
function samplerRatio(sampler: string | undefined, arg: string | undefined): number {
  const name = (sampler ?? '').trim().toLowerCase();
  if (name === '' || name === 'always_on' || name === 'parentbased_always_on') return 1;
  if (name === 'always_off' || name === 'parentbased_always_off') return 0;
  if (name === 'traceidratio' || name === 'parentbased_traceidratio') {
    if (arg === undefined || arg.trim() === '') return 1;
    const ratio = Number(arg);
    if (Number.isFinite(ratio) && ratio >= 0 && ratio <= 1) return ratio;
    throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "${arg}"`);
  }
  throw new ConfigError(
    `OTEL_TRACES_SAMPLER must be always_on, always_off, traceidratio or their parentbased_ forms, got "${sampler}"`,
  );
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const text = env[name]?.trim().toLowerCase();
  if (!text || text === '0' || text === 'false') return false;
  if (text === '1' || text === 'true') return true;
  throw new ConfigError(`${name} must be 1 or 0 (or true or false), got "${env[name]}"`);
}

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0)
    throw new ConfigError(`${name} must be a positive whole number, got "${text}"`);
  return value;
}

/** The ids of one event's trace (hex): its trace, and the spans others nest under. */
export interface EventTraceIds {
  trace: string;
  /** The span of the event's ingest (the trace's root). */
  ingest: string;
  /** The span of the event's routing (parent of its dispatches). */
  routing: string;
}

/**
 * The ids of an event's trace, derived from its id with a key: the same on every node of a
 * deployment, different between deployments that share event ids, and revealing nothing of the key
 * or the event id. Each is a SHA-256 over a key of tracing's own (derived from the deployment's
 * secret) followed by the text it names: one digest gives an event's trace, ingest and routing ids,
 * one more each dispatch's. A one-shot hash costs a third of an HMAC's keyed object; the ids
 * authenticate nothing, so HMAC's defence against length extension buys nothing here. A few
 * thousand are kept, since every span of an event asks again.
 */
export class TraceIds {
  private readonly key: string;
  private readonly events = new Memo<EventTraceIds>();
  private readonly dispatches = new Memo<string>();

  /** `secret`: the deployment's secret key (every node has it); a key of its own is derived from it. */
  constructor(secret: Uint8Array) {
    this.key = createHmac('sha256', secret).update('portico trace ids').digest('hex');
  }

  /** The event's trace id (16 bytes) and its ingest and routing span ids (8 bytes each), hex. */
  ofEvent(eventId: string): EventTraceIds {
    return this.events.get(eventId, () => {
      const hex = this.digest(`event\0${eventId}`);
      return {
        trace: nonZero(hex.slice(0, 32)),
        ingest: nonZero(hex.slice(32, 48)),
        routing: nonZero(hex.slice(48, 64)),
      };
    });
  }

  /** The event's trace id: 16 bytes, hex. */
  trace(eventId: string): string {
    return this.ofEvent(eventId).trace;
  }

  /** The span id of the event's ingest (the trace's root). */
  ingest(eventId: string): string {
    return this.ofEvent(eventId).ingest;
  }

  /** The span id of the event's routing (parent of its dispatches). */
  routing(eventId: string): string {
    return this.ofEvent(eventId).routing;
  }

  /**
   * The span id of the dispatch of the event to an installation that settled it (parent of the
   * attempts of the deliveries it asked for). Attempts that end in a retry get ids of their own.
   */
  dispatch(eventId: string, installationId: string): string {
    const text = `dispatch\0${eventId}\0${installationId}`;
    return this.dispatches.get(text, () => nonZero(this.digest(text).slice(0, 16)));
  }

  private digest(text: string): string {
    return hash('sha256', `${this.key}\0${text}`, 'hex');
  }
}

/** An all-zero id is invalid in W3C trace context (one in 2^64 at worst). */
const nonZero = (id: string) => (/^0+$/.test(id) ? `${id.slice(0, -1)}1` : id);

/** Values made, by key, up to `size` of them; then it starts again (a recent key is made once more). */
class Memo<T> {
  private readonly values = new Map<string, T>();

  constructor(private readonly size = 4096) {}

  get(key: string, make: () => T): T {
    let value = this.values.get(key);
    if (value === undefined) {
      value = make();
      // Cleared whole rather than oldest first: taking a Map's first key after many deletes walks them.
      if (this.values.size >= this.size) this.values.clear();
      this.values.set(key, value);
    }
    return value;
  }
}

/** The time now as the spans take it: Unix ms with sub-ms precision. */
export const spanClock = () => performance.timeOrigin + performance.now();

/** What ingest tells tracing about one batch of events (events/ingest.ts). */
export interface IngestTrace {
  /** Routing is being decided (before the write). */
  routing(): void;
  /** Routing is decided. */
  routed(): void;
  /**
   * The write committed: `inserted`, the ids it stored (the others were duplicates); `owed`, the
   * outbox rows routing decided (undefined: stored unrouted, the loop routes them later).
   */
  stored(
    events: readonly { event_id: string; type: string }[],
    inserted: ReadonlySet<string>,
    owed: readonly Routed[] | undefined,
  ): void;
}

/** One dispatch of an outbox row, from its start to its outcome. */
export interface DispatchTrace {
  /** Its outcome was written: `delivered`, `not_handled`, `skipped: …`, `failed…` or `retrying: …`. */
  settled(outcome: string): void;
  /** It ended with an error (a lost lease, a failed write). */
  failed(error: unknown): void;
}

/** One delivery attempt, from its start to its written result. */
export interface AttemptTrace {
  attempted(result: { status: DeliveryRow['status']; post: PostResult }): void;
  failed(error: unknown): void;
  /**
   * The W3C `traceparent` naming this attempt's span, for the receiver (sent only when
   * `TracingSettings.sendTraceparent`, see post-webhook.ts); undefined when the trace is not sampled.
   */
  traceparent(): string | undefined;
}

/** What the pipeline calls; undefined when tracing is off. */
export interface PipelineTracing {
  /** A batch of events is being ingested (started now). */
  ingest(): IngestTrace;
  /** The loop routed events stored unrouted: those in `marked` were routed by this node, into `owed`. */
  routedLater(
    events: readonly { event_id: string; type: string }[],
    marked: ReadonlySet<string>,
    owed: readonly Routed[],
    began: number,
  ): void;
  /** An outbox row's dispatch starts now (undefined for an installation's own setup events). */
  dispatching(row: OutboxRow): DispatchTrace | undefined;
  /** A delivery attempt starts now. */
  attempting(row: DeliveryRow): AttemptTrace;
  /** Sends what waits and stops (the server closes). */
  close(): Promise<void>;
}
