// What metrics and tracing cost the delivery pipeline (issue 25): `node scripts/bench-observability.mjs [rounds]`
// after `npm run build`, or as part of `npm run bench`.
//
// - Metrics are always on. Their work per delivered event (the counters and histograms one event
//   touches from ingest to receipt) is timed in this process and set beside the CPU the server
//   spends per delivered event with tracing off.
// - Tracing is off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: the delivery benchmark's throughput
//   runs alternate off and on (exporting to an OTLP/HTTP receiver on 127.0.0.1 run here), on each
//   back end, so both meet the machine in the same state.
import { createServer } from 'node:http';
import { benchDeliveries } from './bench-deliveries.mjs';

export const OBSERVABILITY_SETTINGS = { rounds: 2, events: 2000 };

/** An OTLP/HTTP receiver: answers every export 200 and counts them and their bytes. */
async function otlpReceiver() {
  const seen = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (chunk) => {
      seen.bytes += chunk.length;
    });
    req.on('end', () => {
      if (req.url === '/v1/traces') seen.requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, seen, close: () => server.close() };
}

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

export async function benchObservability(options = {}) {
  const o = { ...OBSERVABILITY_SETTINGS, ...options };
  const metricsMicros = await metricsMicrosPerEvent();
  console.log(`  metrics: ${metricsMicros.toFixed(2)} µs of counters and histograms per delivered event`);
  const receiver = await otlpReceiver();
  const runs = [];
  try {
    for (let round = 1; round <= o.rounds; round++) {
      for (const tracing of [false, true]) {
        const env = tracing ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'portico-bench' } : {};
        const exportsBefore = receiver.seen.requests;
        const results = await benchDeliveries({ throughputOnly: true, events: o.events, env });
        for (const r of results) {
          runs.push({ round, tracing, ...r, exports: receiver.seen.requests - exportsBefore });
          console.log(
            `  ${r.label}, tracing ${tracing ? 'on' : 'off'}, round ${round}: ${Math.round(r.endToEnd)} / s, ${(r.singleCpu.server / 1000).toFixed(2)} ms server CPU per event`,
          );
        }
        if (tracing && receiver.seen.requests === exportsBefore)
          throw new Error('tracing on, but no span reached the OTLP receiver');
      }
    }
  } finally {
    receiver.close();
  }
  return { metricsMicros, runs, exportedBytes: receiver.seen.bytes };
}

/** Geometric mean and range of ratios. */
function ratios(xs) {
  const mean = Math.exp(xs.reduce((a, b) => a + Math.log(b), 0) / xs.length);
  return { mean, low: Math.min(...xs), high: Math.max(...xs) };
}

/**
 * The Markdown table and the ratios, one line each. Each round's tracing-on run is set against the
 * tracing-off run just before it (the machine's speed drifts by more than tracing costs between
 * rounds, far less between neighbours); the ratios' geometric mean and range over the rounds.
 */
export function observabilityRows({ metricsMicros, runs }) {
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
      `- **${label}**, ${pairs.length} rounds: tracing on runs at ${fmt(rate)} the rate of tracing off one event per request and ${fmt(batch)} in batches, with ${fmt(cpu)} the server CPU per delivered event; metrics' own work is ${metricsMicros.toFixed(1)} µs of the ${(cpuOff / 1000).toFixed(2)} ms the server spends per delivered event with tracing off (${((metricsMicros / cpuOff) * 100).toFixed(1)} %).`,
    );
  }
  return { rows, summary };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchObservability({ rounds: Number(process.argv[2] ?? OBSERVABILITY_SETTINGS.rounds) });
  const { rows, summary } = observabilityRows(result);
  console.log(
    '\n| Back end | Tracing | Round | One per request | Server CPU / event | Batches |\n|---|---|---|---|---|---|',
  );
  for (const row of rows) console.log(row);
  console.log();
  for (const line of summary) console.log(line);
}
