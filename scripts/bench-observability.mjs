// What metrics and tracing cost the delivery pipeline (issue 25): `node scripts/bench-observability.mjs [rounds] [events]`
// after `npm run build`, or as part of `npm run bench`.
//
// - Metrics are always on. Their work per delivered event (the counters and histograms one event
//   touches from ingest to receipt) is timed in this process and set beside the CPU the server
//   spends per delivered event with tracing off.
// - Tracing is off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: the delivery benchmark's throughput
//   runs alternate off and on (exporting to an OTLP/HTTP receiver on 127.0.0.1, in a process of
//   its own), on each back end, so both meet the machine in the same state; odd rounds run off first, even rounds on
//   first, so neither always meets what the run before it left. Tracing's own work per event (its
//   four spans made, batched, encoded and sent to the same receiver) is also timed in this process, all its threads counted, and set beside the server's CPU per delivered event.
import { spawn } from 'node:child_process';
import { benchDeliveries } from './bench-deliveries.mjs';

export const OBSERVABILITY_SETTINGS = { rounds: 2, events: 2000 };

/** Microseconds of metrics work per delivered event: what ingest, dispatch and the attempt record. */
async function metricsMicrosPerEvent() {
  const { PlatformMetrics } = await import('../packages/platform/dist/observability/metrics.js');
  const metrics = new PlatformMetrics();
  const post = { kind: 'answered', status: 204, excerpt: '', durationMs: 3.2 };
  const one = (i) => {
    const id = `evt_${i}`;
    const now = Date.now();
    metrics.eventsStored([{ event_id: id, type: 'space_content_updated' }], new Set([id]), now);
    metrics.dispatchSettled('delivered');
    metrics.attempted(id, post, 'delivered', now + 5);
    metrics.batchCommitted(8);
  };
  for (let i = 0; i < 20_000; i++) one(i);
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const n = 100_000;
    const started = performance.now();
    for (let i = 0; i < n; i++) one(round * n + i);
    best = Math.min(best, ((performance.now() - started) * 1000) / n);
  }
  return best;
}

/**
 * An OTLP/HTTP receiver in a process of its own (its work is not this process's), counting the
 * attempt spans that reach it by an attribute only they carry (`portico.delivery.id`) in the
 * protobuf bodies. It ends with this process: it exits when its stdin closes.
 */
async function otlpReceiverProcess() {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const name = Buffer.from('portico.delivery.id'); let attempts = 0;
       const server = require('node:http').createServer((req, res) => {
         const chunks = [];
         req.on('data', (chunk) => chunks.push(chunk));
         req.on('end', () => {
           const body = Buffer.concat(chunks);
           for (let at = body.indexOf(name); at !== -1; at = body.indexOf(name, at + 1)) attempts++;
           res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
         });
       });
       server.listen(0, '127.0.0.1', () => console.log(server.address().port));
       process.stdin.on('data', () => console.log(attempts)).on('end', () => process.exit(0));`,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = [];
  const waiting = [];
  child.stdout.setEncoding('utf8').on('data', (text) => {
    for (const line of text.split('\n').filter(Boolean)) (waiting.shift() ?? ((l) => lines.push(l)))(line);
  });
  const next = () => (lines.length > 0 ? Promise.resolve(lines.shift()) : new Promise((r) => waiting.push(r)));
  const port = Number(await next());
  return {
    url: `http://127.0.0.1:${port}`,
    attempts: () => {
      child.stdin.write('?');
      return next().then(Number);
    },
    close: () => child.stdin.end(),
  };
}

/**
 * Microseconds of CPU (this process, every thread: the collector's too) that tracing adds per
 * event: the ingest, routing, dispatch and attempt spans of one event through the server's own
 * hooks, batched and exported as protobuf to a receiver in another process. Events go in groups
 * of 50, 10,000 a second at most, so the batch processor never drops a span (checked: every
 * attempt span reaches the receiver). Set against the same loop with tracing off.
 */
async function tracingMicrosPerEvent(receiver) {
  const { startTracing } = await import('../packages/platform/dist/observability/start-tracing.js');
  const { tracingFromEnv } = await import('../packages/platform/dist/observability/tracing.js');
  const settings = tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  const tracing = await startTracing(settings, Buffer.alloc(32, 7), { version: 'bench' });
  const type = 'space_content_updated';
  const installation = 'inst_3f2a9c1e7b5d4a80';
  const post = { kind: 'answered', status: 204, excerpt: '', durationMs: 3.2 };
  const one = (trace, i) => {
    const eventId = `bench_${i}_${Date.now().toString(36)}`;
    const owed = { installation_id: installation, integration_name: 'webhook', event_id: eventId, event_type: type };
    const row = { ...owed, id: i, attempts: 0, event: '{}', created_at: 0, available_at: 0, dispatched_at: null };
    const delivery = {
      id: `dlv_${i}`,
      installation_id: installation,
      event_id: eventId,
      type,
      attempts: 0,
      destination: 'http://127.0.0.1:8080',
      redelivery_of: null,
    };
    if (trace === undefined) return [owed, row, delivery];
    const ingest = trace.ingest();
    ingest.routing();
    ingest.routed();
    ingest.stored([{ event_id: eventId, type }], new Set([eventId]), [owed]);
    trace.dispatching(row)?.settled('delivered');
    trace.attempting(delivery).attempted({ status: 'delivered', post });
  };
  const run = async (trace, n) => {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      one(trace, i);
      if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (trace) await trace.flush();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / n;
  };
  try {
    const n = 20_000;
    await run(tracing, 5_000);
    await run(undefined, 5_000);
    const costs = [];
    for (let round = 0; round < 3; round++) {
      const sent = await receiver.attempts();
      const off = await run(undefined, n);
      const on = await run(tracing, n);
      const received = (await receiver.attempts()) - sent;
      if (received !== n) throw new Error(`tracing: ${received} of ${n} attempt spans reached the receiver`);
      costs.push(on - off);
    }
    return costs.sort((a, b) => a - b)[1];
  } finally {
    await tracing.close();
  }
}

export async function benchObservability(options = {}) {
  const o = { ...OBSERVABILITY_SETTINGS, ...options };
  const metricsMicros = await metricsMicrosPerEvent();
  console.log(`  metrics: ${metricsMicros.toFixed(2)} µs of counters and histograms per delivered event`);
  // One receiver for both: the timed loop's and the servers' spans.
  const receiver = await otlpReceiverProcess();
  const runs = [];
  let tracingMicros;
  try {
    tracingMicros = await tracingMicrosPerEvent(receiver);
    console.log(`  tracing: ${tracingMicros.toFixed(1)} µs of CPU per event (four spans, made and exported)`);
    for (let round = 1; round <= o.rounds; round++) {
      for (const tracing of round % 2 === 1 ? [false, true] : [true, false]) {
        const env = tracing ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'portico-bench' } : {};
        const spansBefore = await receiver.attempts();
        const results = await benchDeliveries({ throughputOnly: true, events: o.events, env });
        for (const r of results) {
          runs.push({ round, tracing, ...r });
          console.log(
            `  ${r.label}, tracing ${tracing ? 'on' : 'off'}, round ${round}: ${Math.round(r.endToEnd)} / s, ${(r.singleCpu.server / 1000).toFixed(2)} ms server CPU per event`,
          );
        }
        if (tracing && (await receiver.attempts()) === spansBefore)
          throw new Error('tracing on, but no span reached the OTLP receiver');
      }
    }
  } finally {
    receiver.close();
  }
  return { metricsMicros, tracingMicros, runs };
}

/** Geometric mean and range of ratios. */
function ratios(xs) {
  const mean = Math.exp(xs.reduce((a, b) => a + Math.log(b), 0) / xs.length);
  return { mean, low: Math.min(...xs), high: Math.max(...xs) };
}

/**
 * The Markdown table and the ratios, one line each. Each round's tracing-on run is set against the
 * tracing-off run beside it (the machine's speed drifts by more than tracing costs between rounds,
 * far less between neighbours); the ratios' geometric mean and range over the rounds.
 */
export function observabilityRows({ metricsMicros, tracingMicros, runs }) {
  const rows = runs.map(
    (r) =>
      `| ${r.label} | ${r.tracing ? 'on (OTLP to 127.0.0.1)' : 'off'} | ${r.round} | ${Math.round(r.endToEnd)} / s | ${(r.singleCpu.server / 1000).toFixed(2)} ms | ${r.batch ? `${Math.round(r.batch.endToEnd)} / s` : '—'} |`,
  );
  const summary = [];
  const fmt = ({ mean, low, high }) => `${mean.toFixed(3)}× (${low.toFixed(2)}–${high.toFixed(2)})`;
  for (const label of [...new Set(runs.map((r) => r.label))]) {
    const pairs = [];
    for (const on of runs.filter((r) => r.label === label && r.tracing)) {
      const off = runs.find((r) => r.label === label && !r.tracing && r.round === on.round);
      if (off) pairs.push({ off, on });
    }
    if (pairs.length === 0) continue;
    const rate = ratios(pairs.map(({ off, on }) => on.endToEnd / off.endToEnd));
    const batch = ratios(pairs.map(({ off, on }) => (on.batch?.endToEnd ?? 0) / (off.batch?.endToEnd ?? 1)));
    const cpu = ratios(pairs.map(({ off, on }) => on.singleCpu.server / off.singleCpu.server));
    const cpuOff = pairs.reduce((a, { off }) => a + off.singleCpu.server, 0) / pairs.length;
    summary.push(
      `- **${label}**, ${pairs.length} rounds: tracing on runs at ${fmt(rate)} the rate of tracing off one event per request and ${fmt(batch)} in batches, with ${fmt(cpu)} the server CPU per delivered event. Of the ${(cpuOff / 1000).toFixed(2)} ms the server spends per delivered event with tracing off, metrics' own work is ${metricsMicros.toFixed(1)} µs (${((metricsMicros / cpuOff) * 100).toFixed(1)} %) and tracing's would be ${tracingMicros.toFixed(1)} µs (${((tracingMicros / cpuOff) * 100).toFixed(1)} %).`,
    );
  }
  return { rows, summary };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchObservability({
    rounds: Number(process.argv[2] ?? OBSERVABILITY_SETTINGS.rounds),
    events: Number(process.argv[3] ?? OBSERVABILITY_SETTINGS.events),
  });
  const { rows, summary } = observabilityRows(result);
  console.log(
    '\n| Back end | Tracing | Round | One per request | Server CPU / event | Batches |\n|---|---|---|---|---|---|',
  );
  for (const row of rows) console.log(row);
  console.log();
  for (const line of summary) console.log(line);
}
