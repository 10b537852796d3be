/**
 * The pipeline's spans on the OpenTelemetry SDK, exported over OTLP/HTTP. Loaded only when tracing
 * is on (tracing.ts imports this file dynamically); see docs/decisions/035-tracing.md.
 *
 * Spans are made when their step has ended, with the step's start time, so the span's id can
 * depend on how it ended (a dispatch that settled its row takes the id its deliveries nest under).
 * A step that has ended needs no live span, context or tracer: each span is written whole, as the
 * SDK's `ReadableSpan`, and handed to the SDK's batch processor, which exports it over OTLP. Each
 * server has a processor of its own and registers nothing globally: tests run several servers in
 * one process, and the platform's code reads no ambient context.
 */
import { type Attributes, type HrTime, ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import {
  defaultResource,
  detectResources,
  envDetector,
  type Resource,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  RandomIdGenerator,
  type ReadableSpan,
  type Sampler,
  SamplingDecision,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import { isAlertsInstallation } from '../alerts/operator-alerts.js';
import type { PostResult } from '../delivery/post-webhook.js';
import type { DeliveryRow } from '../storage/repositories/delivery-queue.js';
import { type NewOutboxRow, type OutboxRow, settledAtRouting } from '../storage/repositories/outbox.js';
import { attemptClass } from './metrics.js';
import {
  type AttemptTrace,
  type DispatchTrace,
  type IngestTrace,
  type PipelineTracing,
  type Routed,
  spanClock,
  type TraceIds,
  type TracingSettings,
} from './tracing.js';

interface SpanPlan {
  name: string;
  kind: SpanKind;
  traceId: string;
  /** The parent's span id (it may live on another node); none for the trace's root. */
  parent?: string | undefined;
  /** This span's id, when derived; else random. */
  spanId?: string | undefined;
  start: number;
  attributes: Attributes;
  error?: string | undefined;
}

/** Milliseconds since the epoch (fractional) as OpenTelemetry's [seconds, nanoseconds]. */
function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  const nanos = Math.round((ms - seconds * 1000) * 1e6);
  return nanos >= 1e9 ? [seconds + 1, nanos - 1e9] : [seconds, nanos];
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 500);

export class OtelTracing implements PipelineTracing {
  private readonly randomIds = new RandomIdGenerator();

  private constructor(
    private readonly processor: BatchSpanProcessor,
    private readonly sampler: Sampler,
    private readonly ids: TraceIds,
    private readonly resource: Resource,
    private readonly scope: { name: string; version: string },
  ) {}

  static async start(
    settings: TracingSettings,
    ids: TraceIds,
    options: { version: string; logger?: Logger | undefined },
  ): Promise<OtelTracing> {
    // The exporters read OTEL_EXPORTER_OTLP_(TRACES_)HEADERS, _TIMEOUT, _COMPRESSION and the
    // certificate variables themselves; the URL is the one the settings name.
    const exporter: SpanExporter =
      settings.protocol === 'http/json'
        ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter({ url: settings.tracesUrl })
        : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter({ url: settings.tracesUrl });
    // Decided by the trace id alone, so every span of an event, on every node, is kept or dropped together.
    const sampler: Sampler =
      settings.ratio >= 1
        ? new AlwaysOnSampler()
        : settings.ratio <= 0
          ? new AlwaysOffSampler()
          : new TraceIdRatioBasedSampler(settings.ratio);
    // The SDK's own (telemetry.sdk.name, .language, .version), then OTEL_RESOURCE_ATTRIBUTES, with
    // Portico's service name and version over them.
    const resource = defaultResource()
      .merge(detectResources({ detectors: [envDetector] }))
      .merge(resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': options.version }));
    const processor = new BatchSpanProcessor({
      exporter,
      scheduledDelayMillis: settings.scheduledDelayMs,
      maxExportBatchSize: Math.min(settings.maxExportBatchSize, settings.maxQueueSize),
      maxQueueSize: settings.maxQueueSize,
      exportTimeoutMillis: settings.exportTimeoutMs,
    });
    return new OtelTracing(processor, sampler, ids, resource, { name: '@portico/platform', version: options.version });
  }

  ingest(): IngestTrace {
    const began = spanClock();
    let routeBegan: number | undefined;
    let routeEnded: number | undefined;
    return {
      routing: () => {
        routeBegan = spanClock();
      },
      routed: () => {
        routeEnded = spanClock();
      },
      stored: (events, inserted, owed) => {
        const end = spanClock();
        const byEvent = owed && installationsByEvent(owed);
        const seen = new Set<string>();
        for (const event of events) {
          const eventId = event.event_id;
          const ids = this.ids.ofEvent(eventId);
          const traceId = ids.trace;
          const attributes = { 'portico.event.id': eventId, 'portico.event.type': event.type };
          if (!inserted.has(eventId) || seen.has(eventId)) {
            // A repeated eventId: its own span in the event's trace, under the first ingest.
            this.record(
              {
                name: 'event.ingest',
                kind: SpanKind.INTERNAL,
                traceId,
                parent: ids.ingest,
                start: began,
                attributes: { ...attributes, 'portico.event.duplicate': true },
              },
              end,
            );
            continue;
          }
          seen.add(eventId);
          this.record(
            {
              name: 'event.ingest',
              kind: SpanKind.INTERNAL,
              traceId,
              spanId: ids.ingest,
              start: began,
              attributes: {
                ...attributes,
                'portico.event.duplicate': false,
                'portico.event.routed': byEvent !== undefined,
              },
            },
            end,
          );
          // Stored unrouted: the dispatcher's loop routes it later, and records its routing then.
          if (byEvent !== undefined && routeBegan !== undefined)
            this.routing(eventId, event.type, byEvent.get(eventId) ?? [], routeBegan, routeEnded ?? end, false);
        }
      },
    };
  }

  routedLater(
    events: readonly { event_id: string; type: string }[],
    marked: ReadonlySet<string>,
    owed: readonly Routed[],
    began: number,
  ): void {
    const end = spanClock();
    const byEvent = installationsByEvent(owed);
    for (const event of events) {
      if (marked.has(event.event_id))
        this.routing(event.event_id, event.type, byEvent.get(event.event_id) ?? [], began, end, true);
    }
  }

  dispatching(row: OutboxRow): DispatchTrace | undefined {
    const eventId = row.event_id;
    // An installation's own setup and deleted events belong to no ingested event.
    if (eventId === null) return undefined;
    const start = spanClock();
    let ended = false;
    const plan = (outcome: string | undefined, final: boolean, error?: string): SpanPlan => ({
      name: 'event.dispatch',
      kind: SpanKind.CONSUMER,
      traceId: this.ids.trace(eventId),
      parent: this.ids.routing(eventId),
      spanId: final ? this.ids.dispatch(eventId, row.installation_id) : undefined,
      start,
      attributes: {
        'portico.event.id': eventId,
        'portico.event.type': row.event_type,
        'portico.installation.id': row.installation_id,
        'portico.integration.name': row.integration_name,
        'portico.outbox.id': row.id,
        'portico.dispatch.attempt': row.attempts + 1,
        ...(outcome !== undefined ? { 'portico.dispatch.outcome': outcome.slice(0, 500) } : {}),
      },
      error,
    });
    return {
      settled: (outcome) => {
        if (ended) return;
        ended = true;
        const retrying = outcome.startsWith('retrying');
        const failed = retrying || outcome.startsWith('failed');
        this.record(plan(outcome, !retrying, failed ? outcome.slice(0, 500) : undefined), spanClock());
      },
      failed: (error) => {
        if (ended) return;
        ended = true;
        this.record(plan(undefined, false, errorText(error)), spanClock());
      },
    };
  }

  attempting(row: DeliveryRow): AttemptTrace {
    const start = spanClock();
    const number = row.attempts + 1;
    // (Read now: the attempt updates the row in memory before its span is written.)
    const url = row.url;
    let ended = false;
    const traceId = this.ids.trace(row.event_id);
    // Known before the request goes, so that a receiver can be told it (traceparent).
    const spanId = this.randomIds.generateSpanId();
    // An operator alert's delivery starts a trace of its own: no routing made it (its event is
    // the alert), so a parent named after one would never be exported.
    const parent = isAlertsInstallation(row.installation_id)
      ? undefined
      : // Routing fanned the event out to the installation's subscription (decision 052).
        this.ids.routing(row.event_id);
    const plan = (attributes: Attributes, error?: string): SpanPlan => ({
      // HTTP semantic conventions: a client span is named by its method.
      name: 'POST',
      kind: SpanKind.CLIENT,
      traceId,
      parent,
      spanId,
      start,
      attributes: {
        ...urlAttributes(url),
        // Attempts before this one (the conventions count resends from 1; absent on the first).
        ...(number > 1 ? { 'http.request.resend_count': number - 1 } : {}),
        'portico.event.id': row.event_id,
        'portico.event.type': row.type,
        'portico.installation.id': row.installation_id,
        'portico.delivery.id': row.id,
        'portico.delivery.attempt': number,
        // The destination's scheme, host and port: a URL's path and query may hold a secret.
        ...(row.destination ? { 'portico.delivery.destination': row.destination } : {}),
        ...(row.redelivery_of ? { 'portico.delivery.redelivery_of': row.redelivery_of } : {}),
        'http.request.method': 'POST',
        ...attributes,
      },
      error,
    });
    return {
      attempted: ({ status, post }) => {
        if (ended) return;
        ended = true;
        const kind = attemptClass(post);
        const error =
          post.kind === 'answered'
            ? kind === '2xx'
              ? undefined
              : `answered ${post.status}`
            : post.kind === 'refused'
              ? post.reason
              : errorText(post.error);
        this.record(
          plan(
            {
              'portico.delivery.outcome_class': kind,
              'portico.delivery.status': status,
              ...(post.kind === 'answered' ? { 'http.response.status_code': post.status } : {}),
              ...(error === undefined ? {} : { 'error.type': errorType(post) }),
            },
            error,
          ),
          spanClock(),
        );
      },
      failed: (error) => {
        if (ended) return;
        ended = true;
        this.record(plan({ 'error.type': errorTypeOf(error) }, errorText(error)), spanClock());
      },
      traceparent: () => (this.sampled(traceId, 'POST') ? `00-${traceId}-${spanId}-01` : undefined),
    };
  }

  private sampled(traceId: string, name: string): boolean {
    return (
      this.sampler.shouldSample(ROOT_CONTEXT, traceId, name, SpanKind.CLIENT, {}, []).decision ===
      SamplingDecision.RECORD_AND_SAMPLED
    );
  }

  async close(): Promise<void> {
    await this.processor.shutdown();
  }

  /** Sends what waits now (tests). */
  async flush(): Promise<void> {
    await this.processor.forceFlush();
  }

  private routing(
    eventId: string,
    type: string,
    installations: string[],
    start: number,
    end: number,
    later: boolean,
  ): void {
    const ids = this.ids.ofEvent(eventId);
    this.record(
      {
        name: 'event.route',
        kind: SpanKind.INTERNAL,
        traceId: ids.trace,
        parent: ids.ingest,
        spanId: ids.routing,
        start,
        attributes: {
          'portico.event.id': eventId,
          'portico.event.type': type,
          'portico.routing.installations': installations,
          'portico.routing.dispatches': installations.length,
          'portico.routing.deferred': later,
        },
      },
      end,
    );
  }

  /** Writes one ended span with the ids its plan names, when its trace is sampled. */
  private record(plan: SpanPlan, end: number): void {
    const { traceId } = plan;
    const sampled = this.sampler.shouldSample(ROOT_CONTEXT, traceId, plan.name, plan.kind, plan.attributes, []);
    if (sampled.decision !== SamplingDecision.RECORD_AND_SAMPLED) return;
    const context = { traceId, spanId: plan.spanId ?? this.randomIds.generateSpanId(), traceFlags: TraceFlags.SAMPLED };
    const startTime = hrTime(plan.start);
    const span: ReadableSpan = {
      name: plan.name,
      kind: plan.kind,
      spanContext: () => context,
      parentSpanContext:
        plan.parent === undefined
          ? undefined
          : { traceId, spanId: plan.parent, traceFlags: TraceFlags.SAMPLED, isRemote: true },
      startTime,
      endTime: hrTime(end),
      duration: hrTime(Math.max(0, end - plan.start)),
      status:
        plan.error === undefined ? { code: SpanStatusCode.UNSET } : { code: SpanStatusCode.ERROR, message: plan.error },
      attributes: plan.attributes,
      links: [],
      events: [],
      ended: true,
      resource: this.resource,
      instrumentationScope: this.scope,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
    this.processor.onEnd(span);
  }
}

/** The installations each event is dispatched to (not those routing recorded as skipped: paused). */
function installationsByEvent(owed: readonly Routed[]): Map<string, string[]> {
  const byEvent = new Map<string, string[]>();
  for (const row of owed) {
    if (row.event_id == null || settledAtRouting(row)) continue;
    const list = byEvent.get(row.event_id);
    if (list) list.push(row.installation_id);
    else byEvent.set(row.event_id, [row.installation_id]);
  }
  return byEvent;
}

/**
 * `url.full`, `server.address` and `server.port` of a delivery's URL (HTTP semantic conventions).
 * What may be a secret is redacted, as the conventions advise: user and password are removed, and
 * the path and each query value read `REDACTED` (many webhook URLs carry their token in the path,
 * and the traces must not hold it: decision 035).
 */
export function urlAttributes(url: string): Attributes {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {};
  }
  parsed.username = '';
  parsed.password = '';
  const names = [...parsed.searchParams.keys()];
  if (parsed.pathname !== '/' && parsed.pathname !== '') parsed.pathname = '/REDACTED';
  if (names.length > 0) parsed.search = names.map((name) => `${encodeURIComponent(name)}=REDACTED`).join('&');
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  return {
    'url.full': parsed.toString(),
    'server.address': parsed.hostname.replace(/^\[|\]$/g, ''),
    'server.port': port,
  };
}

/**
 * `error.type` of an attempt that failed: the status code for an answer (as text, as the
 * conventions say), `timeout`, the socket's error code (ECONNREFUSED…), or `refused` (the egress
 * guard), else the error's class.
 */
function errorType(post: PostResult): string {
  if (post.kind === 'answered') return String(post.status);
  if (post.kind === 'refused') return 'refused';
  if (post.error.name === 'TimeoutError') return 'timeout';
  return errorTypeOf(post.error);
}

function errorTypeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== '') return code;
  return error instanceof Error ? error.name || 'Error' : '_OTHER';
}
