/**
 * Traces on the real server, on SQLite and PostgreSQL: a real OTLP/HTTP receiver on 127.0.0.1
 * gets the spans of real events, and they nest in one trace per event: ingest → routing → each
 * attempt of the delivery fanned out to the webhook subscription, with the event id and the
 * installation as attributes. Also: the settings from the standard variables, and the protobuf
 * exporter's requests.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../config.js';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';
import { urlAttributes } from './otel-tracing.js';
import { startTracing } from './start-tracing.js';
import { TraceIds, type TracingSettings, tracingFromEnv } from './tracing.js';

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  error: boolean;
  resource: Record<string, unknown>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

const decoded = (value: AnyValue): unknown =>
  value.stringValue ??
  (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
  value.boolValue ??
  value.arrayValue?.values?.map(decoded);
const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map((kv) => [kv.key, decoded(kv.value)]));

/** An OTLP/HTTP receiver: keeps every request to /v1/traces, and decodes the JSON ones into spans. */
class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly requests: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces') return res.writeHead(404).end();
        const body = Buffer.concat(chunks);
        this.requests.push({ headers: req.headers, body });
        if (req.headers['content-type']?.startsWith('application/json')) {
          const parsed = JSON.parse(body.toString('utf8'));
          for (const rs of parsed.resourceSpans ?? []) {
            const resource = attributesOf(rs.resource?.attributes);
            for (const ss of rs.scopeSpans ?? [])
              for (const span of ss.spans ?? [])
                this.spans.push({
                  traceId: span.traceId,
                  spanId: span.spanId,
                  parentSpanId: span.parentSpanId ?? '',
                  name: span.name,
                  kind: span.kind,
                  attributes: attributesOf(span.attributes),
                  error: span.status?.code === 2,
                  resource,
                });
          }
        }
        res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  of(eventId: string, name?: string): ReceivedSpan[] {
    return this.spans.filter(
      (s) => s.attributes['portico.event.id'] === eventId && (name === undefined || s.name === name),
    );
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

const settingsFor = (tracesUrl: string, protocol: TracingSettings['protocol']): TracingSettings => ({
  tracesUrl,
  protocol,
  serviceName: 'portico',
  ratio: 1,
  scheduledDelayMs: 50,
  maxExportBatchSize: 512,
  maxQueueSize: 2048,
  exportTimeoutMs: 5000,
});

describe.each(backends)('traces on $name', (backend) => {
  const otlp = new OtlpReceiver();
  const receiver = new ScriptedReceiver();
  const tracing = settingsFor('', 'http/json');
  // Registered before the world's: the receiver's URL is known when the server starts.
  beforeAll(async () => {
    await otlp.start();
    tracing.tracesUrl = `${otlp.url}/v1/traces`;
  });
  afterAll(() => otlp.close());
  const world = webhookWorldFor(backend, { tracing }, [receiver]);

  it('sends one trace per event: ingest → routing → each delivery attempt (fanned out, no dispatch), with the event and installation', async () => {
    const url = receiver.script('/traced', [500, 200]);
    await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { url, space_content_updated: true });
    const eventId = `evt_trace_${randomBytes(6).toString('hex')}`;
    const answer = await world.admin('POST', '/v1/events', {
      type: 'space_content_updated',
      spaceId: 'docs',
      revisionId: 'r1',
      eventId,
    });
    expect(answer.status).toBe(202);
    // The same event again: a duplicate, with a span of its own in the same trace.
    const again = await world.admin('POST', '/v1/events', {
      type: 'space_content_updated',
      spaceId: 'docs',
      revisionId: 'r1',
      eventId,
    });
    expect(again.body.duplicate).toBe(true);
    // The first attempt answered 500, the retry (1 s later) 200.
    const attempts = await until('two delivery attempts traced', () => {
      const found = otlp.of(eventId, 'POST');
      return found.length === 2 ? found : undefined;
    });
    const [ingest, duplicate] = [
      otlp.of(eventId, 'event.ingest').find((s) => s.attributes['portico.event.duplicate'] === false),
      otlp.of(eventId, 'event.ingest').find((s) => s.attributes['portico.event.duplicate'] === true),
    ];
    const routes = otlp.of(eventId, 'event.route');
    expect(ingest).toBeDefined();
    expect(duplicate).toBeDefined();
    expect(routes).toHaveLength(1);
    // Fanned out to the subscription when accepted: no dispatch.
    expect(otlp.of(eventId, 'event.dispatch')).toEqual([]);
    const route = routes[0] as ReceivedSpan;
    const root = ingest as ReceivedSpan;

    // One trace, and its spans nest.
    const traceId = root.traceId;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    for (const span of [duplicate, route, ...attempts]) expect(span?.traceId).toBe(traceId);
    expect(root.parentSpanId).toBe('');
    expect(duplicate?.parentSpanId).toBe(root.spanId);
    expect(route.parentSpanId).toBe(root.spanId);
    for (const attempt of attempts) expect(attempt.parentSpanId).toBe(route.spanId);
    expect(new Set([root, duplicate, route, ...attempts].map((s) => s?.spanId)).size).toBe(5);

    // What each says.
    expect(root.resource['service.name']).toBe('portico');
    expect(root.resource).toMatchObject({
      'telemetry.sdk.name': 'opentelemetry',
      'telemetry.sdk.language': 'nodejs',
      'telemetry.sdk.version': expect.stringMatching(/^\d+\.\d+/),
    });
    expect(root.attributes['portico.event.type']).toBe('space_content_updated');
    expect(route.attributes['portico.routing.installations']).toEqual([world.space]);
    expect(route.attributes['portico.routing.deferred']).toBe(false);
    const byNumber = [...attempts].sort(
      (a, b) =>
        (a.attributes['portico.delivery.attempt'] as number) - (b.attributes['portico.delivery.attempt'] as number),
    );
    expect(byNumber.map((a) => a.attributes['http.response.status_code'])).toEqual([500, 200]);
    expect(byNumber.map((a) => a.attributes['portico.delivery.status'])).toEqual(['pending', 'delivered']);
    expect(byNumber.map((a) => a.error)).toEqual([true, false]);
    // HTTP semantic conventions of a client span.
    const { hostname, port } = new URL(receiver.url);
    expect(byNumber.map((a) => a.attributes['http.request.resend_count'])).toEqual([undefined, 1]);
    expect(byNumber.map((a) => a.attributes['error.type'])).toEqual(['500', undefined]);
    for (const attempt of attempts) {
      expect(attempt.kind).toBe(3); // CLIENT
      expect(attempt.attributes).toMatchObject({
        'http.request.method': 'POST',
        'url.full': `${receiver.url}/REDACTED`,
        'server.address': hostname,
        'server.port': Number(port),
      });
    }
    for (const attempt of attempts) {
      expect(attempt.attributes['portico.installation.id']).toBe(world.space);
      expect(attempt.attributes['portico.delivery.id']).toMatch(/\S/);
      // The destination, never the URL's path (which may hold a secret).
      expect(attempt.attributes['portico.delivery.destination']).toBe(receiver.url);
    }
    // The delivered body carried the same event.
    expect(receiver.at('/traced').every((r) => JSON.parse(r.body).eventId === eventId)).toBe(true);
  });

  it('keeps the trace when the event is routed later by the loop (stored while no dispatcher ran)', async () => {
    const url = receiver.script('/later', [200]);
    await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { url, space_content_updated: true });
    const eventId = `evt_later_${randomBytes(6).toString('hex')}`;
    await world.platform.dispatcher.stop();
    try {
      const answer = await world.admin('POST', '/v1/events', {
        type: 'space_content_updated',
        spaceId: 'docs',
        revisionId: 'r2',
        eventId,
      });
      expect(answer.status).toBe(202);
    } finally {
      world.platform.dispatcher.start();
    }
    const [attempt] = await until('the delivery attempt traced', () => {
      const found = otlp.of(eventId, 'POST');
      return found.length === 1 ? found : undefined;
    });
    const ingest = otlp.of(eventId, 'event.ingest')[0];
    const route = otlp.of(eventId, 'event.route')[0];
    expect(ingest?.attributes['portico.event.routed']).toBe(false);
    expect(route?.attributes['portico.routing.deferred']).toBe(true);
    expect(route?.attributes['portico.routing.installations']).toEqual([world.space]);
    expect(route?.parentSpanId).toBe(ingest?.spanId);
    expect(attempt?.parentSpanId).toBe(route?.spanId);
    expect(new Set([ingest, route, attempt].map((s) => s?.traceId)).size).toBe(1);
  });
});

describe('tracing settings', () => {
  it('is off without an endpoint, and when disabled', () => {
    expect(tracingFromEnv({})).toBeUndefined();
    expect(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(
      tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBeUndefined();
  });

  it('reads the standard variables', () => {
    expect(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      tracesUrl: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: 'portico',
      ratio: 1,
      scheduledDelayMs: 5000,
      maxExportBatchSize: 512,
      maxQueueSize: 2048,
      exportTimeoutMs: 30000,
      sendTraceparent: false,
    });
    expect(
      tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', PORTICO_DELIVERY_TRACEPARENT: '1' })
        ?.sendTraceparent,
    ).toBe(true);
    expect(
      tracingFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp/spans',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'portico-eu',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      }),
    ).toMatchObject({
      tracesUrl: 'https://traces.example/otlp/spans',
      protocol: 'http/json',
      serviceName: 'portico-eu',
      ratio: 0.25,
      scheduledDelayMs: 200,
    });
  });

  it('refuses what it cannot honour', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(() => tracingFromEnv({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(ConfigError);
    expect(() => tracingFromEnv({ ...base, OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(ConfigError);
    expect(() =>
      tracingFromEnv({ ...base, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }),
    ).toThrow(ConfigError);
    expect(() => tracingFromEnv({ ...base, OTEL_BSP_SCHEDULE_DELAY: 'soon' })).toThrow(ConfigError);
    expect(() => tracingFromEnv({ ...base, PORTICO_DELIVERY_TRACEPARENT: 'yes please' })).toThrow(
      /PORTICO_DELIVERY_TRACEPARENT must be 1 or 0/,
    );
    expect(() => tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(ConfigError);
  });

  it('derives ids per deployment: the same on every node with the key, different with another', () => {
    const key = randomBytes(32);
    const a = new TraceIds(key);
    const b = new TraceIds(Uint8Array.from(key));
    const other = new TraceIds(randomBytes(32));
    expect(a.trace('evt_1')).toBe(b.trace('evt_1'));
    expect(a.trace('evt_1')).not.toBe(other.trace('evt_1'));
    expect(a.trace('evt_1')).not.toBe(a.trace('evt_2'));
    expect(a.dispatch('evt_1', 'inst_a')).not.toBe(a.dispatch('evt_1', 'inst_b'));
    expect(new Set([a.ingest('evt_1'), a.routing('evt_1'), a.dispatch('evt_1', 'inst_a')]).size).toBe(3);
    // The ids kept for the last events are the ids derived again once they are forgotten.
    const first = [a.trace('evt_1'), a.ingest('evt_1'), a.dispatch('evt_1', 'inst_a')];
    for (let i = 0; i < 5000; i++) a.dispatch(`evt_other_${i}`, 'inst_a') && a.trace(`evt_other_${i}`);
    expect([b.trace('evt_1'), b.ingest('evt_1'), b.dispatch('evt_1', 'inst_a')]).toEqual(first);
    expect([a.trace('evt_1'), a.ingest('evt_1'), a.dispatch('evt_1', 'inst_a')]).toEqual(first);
    expect(a.trace('evt_1')).toMatch(/^[0-9a-f]{32}$/);
    expect(a.dispatch('evt_1', 'inst_a')).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('the protobuf exporter', () => {
  const otlp = new OtlpReceiver();
  beforeAll(() => otlp.start());
  afterAll(() => otlp.close());

  it('sends OTLP/HTTP protobuf by default, with the ids and attributes in the body', async () => {
    const key = randomBytes(32);
    const tracing = await startTracing(settingsFor(`${otlp.url}/v1/traces`, 'http/protobuf'), key, { version: 't' });
    if (tracing === undefined) throw new Error('tracing is on with settings');
    const eventId = `evt_proto_${randomBytes(4).toString('hex')}`;
    const ingest = tracing.ingest();
    ingest.routing();
    ingest.routed();
    ingest.stored([{ event_id: eventId, type: 'space_view' }], new Set([eventId]), []);
    await tracing.close();
    expect(otlp.requests.length).toBeGreaterThan(0);
    const request = otlp.requests.find((r) => r.body.includes(eventId));
    expect(request?.headers['content-type']).toBe('application/x-protobuf');
    const ids = new TraceIds(key);
    // Ids travel as raw bytes in protobuf.
    expect(request?.body.includes(Buffer.from(ids.trace(eventId), 'hex'))).toBe(true);
    expect(request?.body.includes(Buffer.from(ids.routing(eventId), 'hex'))).toBe(true);
    expect(request?.body.includes(Buffer.from('portico.event.id'))).toBe(true);
  });

  it("keeps or drops an event's spans together by its trace id when sampling (traceidratio)", async () => {
    const half = await startTracing(
      { ...settingsFor(`${otlp.url}/v1/traces`, 'http/json'), ratio: 0.5 },
      randomBytes(32),
      {
        version: 't',
      },
    );
    const none = await startTracing(
      { ...settingsFor(`${otlp.url}/v1/traces`, 'http/json'), ratio: 0 },
      randomBytes(32),
      {
        version: 't',
      },
    );
    if (half === undefined || none === undefined) throw new Error('tracing is on with settings');
    const prefix = `evt_sample_${randomBytes(4).toString('hex')}_`;
    const events = Array.from({ length: 200 }, (_, i) => ({ event_id: `${prefix}${i}`, type: 'space_view' }));
    for (const tracing of [half, none]) {
      const ingest = tracing.ingest();
      ingest.routing();
      ingest.routed();
      ingest.stored(events, new Set(events.map((e) => e.event_id)), []);
      await tracing.close();
    }
    const spans = otlp.spans.filter((span) => String(span.attributes['portico.event.id']).startsWith(prefix));
    const byEvent = new Map<string, ReceivedSpan[]>();
    for (const span of spans) {
      const eventId = span.attributes['portico.event.id'] as string;
      byEvent.set(eventId, [...(byEvent.get(eventId) ?? []), span]);
    }
    // About half of the events are kept (by the tracing at 0.5 only), each with both its spans, in one trace.
    expect(byEvent.size).toBeGreaterThan(60);
    expect(byEvent.size).toBeLessThan(140);
    for (const kept of byEvent.values()) {
      expect(kept.map((span) => span.name).sort()).toEqual(['event.ingest', 'event.route']);
      expect(new Set(kept.map((span) => span.traceId)).size).toBe(1);
    }
  });
});

describe('url attributes of a delivery span', () => {
  it('redact user, password, path and query values, and name the server and its port', () => {
    expect(urlAttributes('https://user:pw@hooks.example.com/services/T0/B0/secret?token=abc&x=1')).toEqual({
      'url.full': 'https://hooks.example.com/REDACTED?token=REDACTED&x=REDACTED',
      'server.address': 'hooks.example.com',
      'server.port': 443,
    });
    expect(urlAttributes('http://[::1]:8080/')).toEqual({
      'url.full': 'http://[::1]:8080/',
      'server.address': '::1',
      'server.port': 8080,
    });
  });
});
