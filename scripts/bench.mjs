// Portico's benchmarks: `npm run bench` runs them on the built packages and rewrites BENCHMARKS.md.
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { loadManifest, parseManifest } from '@portico/manifest';
import { createComponent, createIntegration, decodeEnvelope, encodeEnvelope } from '@portico/runtime';
import { sign, verify } from '@portico/webhooks';
import { benchApi } from './bench-api.mjs';
import { benchDashboard } from './bench-dashboard.mjs';
import { benchDeliveries, DELIVERY_SETTINGS } from './bench-deliveries.mjs';
import { benchDev, DEV_SETTINGS } from './bench-dev.mjs';
import { benchDispatch } from './bench-dispatch.mjs';
import { benchIdleMemory, IDLE_SETTINGS } from './bench-idle-memory.mjs';
import { benchObservability, OBSERVABILITY_SETTINGS, observabilityRows } from './bench-observability.mjs';
import { benchPeers, PEER_SETTINGS, peerRows } from './bench-peers.mjs';
import { withHandWrittenSections } from './benchmarks-file.mjs';

const exampleDir = new URL('../examples/hello-world/', import.meta.url);
const exampleText = readFileSync(new URL('platform-manifest.yaml', exampleDir), 'utf8');

/** Runs `fn` repeatedly for about `seconds` after a warm-up; answers operations per second (best of 3 rounds). */
async function measure(fn, seconds = 2) {
  for (let i = 0; i < 200; i++) await fn();
  let best = 0;
  for (let round = 0; round < 3; round++) {
    let count = 0;
    const start = performance.now();
    const until = start + (seconds * 1000) / 3;
    while (performance.now() < until) {
      for (let i = 0; i < 50; i++) await fn();
      count += 50;
    }
    best = Math.max(best, (count * 1000) / (performance.now() - start));
  }
  return best;
}

const rate = (n) => Math.round(n).toLocaleString('en-US');

const environment = {
  apiEndpoint: 'http://127.0.0.1:9',
  apiTokens: { installation: 'tok' },
  integration: { name: 'bench', urls: { publicEndpoint: 'http://127.0.0.1:9/public' } },
  id: 'inst_1',
  status: 'active',
  configuration: { greeting: 'Hello' },
  urls: { publicEndpoint: 'http://127.0.0.1:9/public' },
  secrets: {},
  installationKey: 'k',
  organization: 'acme',
  target: 'organization',
  space_selection: { mode: 'all', spaces: [] },
  externalIds: [],
};
const contentUpdated = { type: 'space_content_updated', eventId: 'evt_1', spaceId: 's1', revisionId: 'r1' };

// A webhook delivery body of the size of a page_feedback payload (about 600 bytes).
const deliveryBody = JSON.stringify({
  eventId: 'evt_0123456789',
  type: 'page_feedback',
  installationId: 'inst_0123456789',
  siteId: 'site_1',
  spaceId: 'space_1',
  pageId: 'page_1',
  feedback: { rating: 'good', comment: 'This page answered my question about webhooks and retries.' },
  visitor: {
    anonymousId: 'anon_1',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
    ip: '192.0.2.1',
    cookies: { theme: 'dark' },
  },
  url: 'https://docs.example.com/integrations/webhooks',
  referrer: 'https://www.example.com/search?q=portico+webhooks',
});
const secret = 'whsec_benchmark_secret';
const header = await sign(secret, deliveryBody);
const now = Math.floor(Date.now() / 1000);

const integration = createIntegration({
  events: { space_content_updated: async () => {} },
  components: [
    createComponent({
      componentId: 'counter',
      initialState: () => ({ count: 0 }),
      action: async (element) => ({ state: { count: element.state.count + 1 } }),
      render: async (element) => ({
        type: 'block',
        children: [
          { type: 'text', children: `Count: ${element.state.count}` },
          { type: 'button', label: 'Add', onPress: { action: 'add' } },
        ],
      }),
    }),
  ],
});
const encodedEvent = await encodeEnvelope({ event: contentUpdated, environment });
const encodedRender = await encodeEnvelope({
  event: { type: 'ui_render', eventId: 'e', componentId: 'counter', state: { count: 1 }, action: { action: 'add' } },
  environment,
});
const post = (encoded) =>
  new Request('http://integration.internal/v1', { method: 'POST', headers: encoded.headers, body: encoded.body });

const results = [];
async function bench(name, unit, fn) {
  const value = await measure(fn);
  results.push({ name, value, unit });
  console.log(`${name}: ${rate(value)} ${unit}`);
  return value;
}

await bench('manifest: parseManifest(example text)', 'manifests validated / s', () => {
  if (!parseManifest(exampleText).ok) throw new Error('the example manifest is invalid');
});
await bench(
  'manifest: loadManifest(example dir), with its files and preview image read from disk',
  'manifests validated / s',
  async () => {
    if (!(await loadManifest(exampleDir.pathname)).ok) throw new Error('the example manifest is invalid');
  },
);
await bench(
  'runtime: encodeEnvelope + decodeEnvelope (event and environment, no body)',
  'round trips / s',
  async () => {
    const encoded = await encodeEnvelope({ event: contentUpdated, environment });
    await decodeEnvelope(post(encoded));
  },
);
await bench(
  'runtime: createIntegration().fetch, an event envelope (decode, dispatch, 204)',
  'dispatches / s',
  async () => {
    const response = await integration.fetch(post(encodedEvent));
    if (response.status !== 204) throw new Error(`dispatch answered ${response.status}`);
  },
);
await bench(
  'runtime: createIntegration().fetch, ui_render with an action (decode, action, render, validate)',
  'dispatches / s',
  async () => {
    const response = await integration.fetch(post(encodedRender));
    if (response.status !== 200) throw new Error(`render answered ${response.status}`);
    await response.arrayBuffer();
  },
);
const verifyRate = await bench(
  `webhooks: verify() of a ${deliveryBody.length}-byte delivery`,
  'verifications / s',
  async () => {
    if (!(await verify(secret, deliveryBody, header, { now }))) throw new Error('verify failed');
  },
);
const hmacRate = await bench(
  `webhooks: raw HMAC-SHA256 (node:crypto) of the same ${deliveryBody.length} bytes`,
  'HMACs / s',
  () => {
    createHmac('sha256', secret).update(`${now}.`).update(deliveryBody).digest('hex');
  },
);

console.log('API benchmarks (autocannon, 10 connections, 5 s each)…');
const api = await benchApi();
const apiRows = [
  `| bare node:http hello world (the baseline) | ${rate(api.helloRate)} req/s | 1.00 |`,
  ...api.results.flatMap((r) => [
    `| ${r.label}: GET /v1/installations/{id} | ${rate(r.get)} req/s | ${(r.get / api.helloRate).toFixed(2)} |`,
    `| ${r.label}: PATCH /v1/installations/{id}/configuration | ${rate(r.patch)} req/s | ${(r.patch / api.helloRate).toFixed(2)} |`,
  ]),
];
const memoryRows = [
  `| bare node:http hello world | ${api.helloRss.toFixed(1)} MiB |`,
  ...api.results.map((r) => `| portico serve, ${r.label}, idle after start | ${r.idle.toFixed(1)} MiB |`),
];
for (const row of [...apiRows, ...memoryRows]) console.log(row);

console.log('Dispatch benchmarks (in-process and workerd hosts)…');
const dispatch = await benchDispatch();
const ms = (n) => `${n.toFixed(2)} ms`;
const dispatchRows = [
  `| in-process | ${ms(dispatch.inProcess.p50)} | ${ms(dispatch.inProcess.p99)} | ${rate(dispatch.inProcess.perSecond)} |`,
  `| workerd | ${ms(dispatch.workerd.p50)} | ${ms(dispatch.workerd.p99)} | ${rate(dispatch.workerd.perSecond)} |`,
];
for (const row of dispatchRows) console.log(row);
console.log(`workerd cold start ${ms(dispatch.coldStartMs)}, idle worker ${dispatch.idleMiB.toFixed(1)} MiB`);

const D = DELIVERY_SETTINGS;
const count = (n) => n.toLocaleString('en-US');
/** A latency: two decimals under 100 ms, whole milliseconds above, "not received" when some never were. */
const lat = (n) => (Number.isFinite(n) ? (n < 100 ? ms(n) : `${count(Math.round(n))} ms`) : 'not all received');
const ratio = (a, b) => (a / b).toFixed(2);

console.log(
  `Delivery benchmarks (${count(D.events)} events end to end, singly and in batches; ${D.steadyRate} events/s for ${D.steadySeconds} s; rate steps; a noisy neighbour)…`,
);
const deliveryResults = await benchDeliveries();
const throughputRows = deliveryResults.flatMap((r) => [
  `| ${r.label} | \`POST /v1/events\`, one event per request | ${rate(r.endToEnd)} / s | ${rate(r.ceiling)} / s | ${ratio(r.endToEnd, r.ceiling)} |`,
  r.batch
    ? `| ${r.label} | \`POST /v1/events/batch\`, ${count(D.batchSize)} events per request (all accepted in ${count(Math.round(r.batch.ingestMs))} ms) | ${rate(r.batch.endToEnd)} / s | ${rate(r.ceiling)} / s | ${ratio(r.batch.endToEnd, r.ceiling)} |`
    : `| ${r.label} | \`POST /v1/events/batch\` | not served by this build | ${rate(r.ceiling)} / s | — |`,
]);
/** CPU per event in ms (two decimals), or "—" when not measured (PostgreSQL on another machine). */
const cpuCell = (us) => (us === undefined || !Number.isFinite(us) ? '—' : `${(us / 1000).toFixed(2)} ms`);
const cpuRow = (label, through, cpu) => {
  const sum = cpu.server + (cpu.database ?? 0) + cpu.bench;
  return `| ${label} | ${through} | ${cpuCell(cpu.server)} | ${cpuCell(cpu.database)} | ${cpuCell(cpu.bench)} | ${cpuCell(sum)} | ${rate((cpus().length * 1e6) / sum)} / s |`;
};
const cpuRows = deliveryResults.flatMap((r) => [
  cpuRow(r.label, 'one event per request', r.singleCpu),
  ...(r.batch ? [cpuRow(r.label, `batches of ${count(D.batchSize)}`, r.batch.cpu)] : []),
]);
const latencyRows = deliveryResults.map(
  (r) =>
    `| ${r.label} | ${lat(r.p50)} | ${lat(r.p99)} | ${lat(r.floor.p50)} | ${lat(r.floor.p99)} | ${r.steady.receivedInTime === r.steady.sent ? 'yes' : `no: ${count(r.steady.receivedInTime)} of ${count(r.steady.sent)}`} |`,
);
const stepCell = (s) =>
  `${count(s.rate)}/s: ${count(s.receivedInTime)} of ${count(s.sent)} in time, p99 ${lat(s.p99)} ${s.sustained ? '✓' : '✗'}`;
const sustainedRows = deliveryResults.map(
  (r) =>
    `| ${r.label} | ${r.sustained > 0 ? `${count(r.sustained)} events / s` : `below ${count(D.lowestStep)} events / s`} | ${rate(r.ceiling)} / s | ${[
      ...r.steps,
    ]
      .sort((a, b) => a.rate - b.rate)
      .map(stepCell)
      .join('; ')} |`,
);
const noisyRows = deliveryResults.map(
  (r) =>
    `| ${r.label} | ${lat(r.quiet.p50)} | ${lat(r.quiet.p99)} | ${lat(r.noisy.p50)} | ${lat(r.noisy.p99)} | ${ratio(r.noisy.p99, r.quiet.p99)} | ${r.noisy.hungAtStart} / ${r.noisy.hungAtEnd} |`,
);
const loadMemoryRows = deliveryResults.map(
  (r) => `| ${r.label} | ${r.peakMemory.toFixed(1)} MiB | ${r.memory.toFixed(1)} MiB |`,
);
for (const row of [...throughputRows, ...latencyRows, ...sustainedRows, ...noisyRows, ...loadMemoryRows])
  console.log(row);

// The peers, each beside a Portico of its own, in rounds (bench-peers.mjs): their ratios are measured there.
console.log('Peers (HTTP ingest → BullMQ on Redis, and → graphile-worker on PostgreSQL → signed POST)…');
const peerResults = await benchPeers();
const peerTable = peerRows(peerResults, D.batchSize, deliveryResults);
const bullmq = peerResults.find((p) => p.label === 'BullMQ');
const engineRows = deliveryResults.map(
  (r) =>
    `| ${r.label} | ${rate(r.engine.perSecond)} / s | ${rate(r.endToEnd)} / s | ${lat(r.engine.p50)} | ${lat(r.engine.p99)} |`,
);
for (const row of [...peerTable.systems, ...peerTable.ratios, ...engineRows]) console.log(row);

console.log('Metrics and tracing (tracing off and on, alternating)…');
const observability = observabilityRows(await benchObservability());
const movedCell = (d) =>
  `${count(d.ingested)} ingested, ${count(d.dispatches)} dispatched, ${count(d.attempts)} attempts, ${count(d.delivered)} delivered`;
const scrapeRows = deliveryResults.map(
  (r) => `| ${r.label} | ${movedCell(r.metricsMoved.halfway)} | ${movedCell(r.metricsMoved.end)} |`,
);
for (const row of [...observability.rows, ...observability.summary]) console.log(row);

const I = IDLE_SETTINGS;
console.log(`Idle memory (${I.integrations} integrations in workerd, PORTICO_WORKER_IDLE_SECONDS=${I.idleSeconds})…`);
const idleResults = await benchIdleMemory();
const mib = (n) => `${n.toFixed(1)} MiB`;
const idleRows = idleResults.map(
  (r) =>
    `| ${r.label} | ${mib(r.atStart.server)} | ${r.withWorkers.dispatches} | ${mib(r.withWorkers.server)} | ${r.withWorkers.workers} | ${mib(r.withWorkers.workersRss)} | ${mib(r.withWorkers.workersPss)} | ${mib(r.withWorkers.server + r.withWorkers.workersRss)} | ${mib(r.afterIdle.server)} (${r.afterIdle.workers} workerd) |`,
);
for (const row of idleRows) console.log(row);

console.log('Dashboard (bundle size; time to interactive of an installation page in Chromium)…');
const dashboard = await benchDashboard();
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const dashboardRows = [
  `| JavaScript (${dashboard.sizes.js.files} file${dashboard.sizes.js.files === 1 ? '' : 's'}) | ${kib(dashboard.sizes.js.raw)} | ${kib(dashboard.sizes.js.gzip)} |`,
  `| CSS (${dashboard.sizes.css.files} file${dashboard.sizes.css.files === 1 ? '' : 's'}) | ${kib(dashboard.sizes.css.raw)} | ${kib(dashboard.sizes.css.gzip)} |`,
];
const ttiRows = dashboard.skipped
  ? [`| not measured: ${dashboard.skipped} | — | — |`]
  : [`| \`/installations/{id}\` of a webhook space installation | ${lat(dashboard.cold)} | ${lat(dashboard.warm)} |`];
for (const row of [...dashboardRows, ...ttiRows]) console.log(row);

console.log('portico dev (start; save to live)…');
const devResult = await benchDev();
const devRows = [
  `| Save to live (median of ${DEV_SETTINGS.saves}; slowest) | ${Math.round(devResult.reloadMedianMs)} ms (${Math.round(devResult.reloadMaxMs)} ms) |`,
  `| Start with a new data directory (median of ${DEV_SETTINGS.starts}) | ${Math.round(devResult.startFreshMs)} ms |`,
  `| Start with a kept data directory (median of ${DEV_SETTINGS.starts}) | ${Math.round(devResult.startKeptMs)} ms |`,
];
for (const row of devRows) console.log(row);

const cpu = cpus();
const machine = `${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}-${process.arch}`;
const report = `# Benchmarks

Written by \`npm run bench\` (scripts/bench.mjs) on the built packages; each figure is the best of
three rounds after a warm-up, in one process. Speed targets live here, never in timed unit tests.
This machine is a shared 2-core VM: absolute figures move by up to 2x from run to run, so compare
the ratios, which are measured against a baseline in the same run. The sections before "API"
measure one change each, with their dates; they are written by hand, and \`npm run bench\` keeps them.

- Date: ${new Date().toISOString().slice(0, 10)}
- Machine: ${machine}

| Benchmark | Result |
|---|---|
${results.map((r) => `| ${r.name} | ${rate(r.value)} ${r.unit} |`).join('\n')}

**verify / raw HMAC: ${(verifyRate / hmacRate).toFixed(2)}** — \`verify\` (header parsing, HMAC, constant-time
compare, async) runs at this fraction of a bare synchronous HMAC over the same bytes in the same run.

## API

\`portico serve\` as a child process (SQLite in WAL mode, a request that wrote answered after its log is synced (decision 014); one log line per request), loaded
by autocannon (${10} connections, ${5} s per route) from the benchmark process on the same machine; a bare
\`node:http\` server answering a fixed JSON body is measured the same way in the same run. GET and PATCH
use a member's user token (token lookup and membership check on each request); each PATCH merges,
validates, writes the configuration and its setup event in one transaction, and the server then
dispatches that setup event to the integration (a minimal worker in workerd) in the background.
All connections edit the same installation, so on PostgreSQL the edits queue on its row lock.

| Server and route | Throughput | Ratio to bare node:http |
|---|---|---|
${apiRows.join('\n')}

| Process | Resident memory (RSS) |
|---|---|
${memoryRows.join('\n')}

## Dispatch

One integration (hello-world's \`greeting\` component: decode the envelope, run the action, render,
validate the tree) dispatched one request at a time through each host, 3,000 (in-process) and 1,500
(workerd) times after a warm-up. Both run the same bundled script and get the envelope as the dispatcher
hands it over: as objects in-process (nothing encoded or decoded), encoded as multipart for workerd and
decoded in the worker.

| Host | p50 latency | p99 latency | Dispatches / s |
|---|---|---|---|
${dispatchRows.join('\n')}

- workerd cold start (a new worker process for an integration version, to its first answer): ${ms(dispatch.coldStartMs)} (median of 3)
- memory of one idle workerd integration (its worker process, RSS): ${dispatch.idleMiB.toFixed(1)} MiB

## Webhook deliveries

Every figure here is \`portico serve\` as a child process on this machine, with the reference receiver
(\`examples/webhook-receiver\`: verifies every signature, answers 200, then does its work, which records the
time) and the senders in the benchmark process. An event is a \`space_content_updated\` event for a space
with a space installation of the built-in webhook integration: it is stored with the delivery its subscription
is owed (fanned out when accepted, decision 052); the delivery engine signs it and POSTs it to the receiver.
The **ceiling** is the engine's own HTTP client posting the same signed bodies straight to the same
receiver, in the same server run: ${count(D.events)} posts, ${D.ceilingConcurrency} at a time, for throughput (the best of three rounds after a
warm-up round); and one post per
scheduled send at ${D.steadyRate} / s for ${D.steadySeconds} s for latency (the floor no pipeline can beat here).
A steady run sends on a fixed schedule without waiting for answers (at most ${D.maxInFlight} requests in flight);
latency is from the scheduled send to the receiver's work, so a late send counts its lateness.

### Throughput

After a warm-up (${count(D.warmup)} events in batches of ${count(D.batchSize)}, then as many one per request, all delivered), ${count(D.events)} events until the last delivery is received: one per request from ${D.senders} senders (each waits for
its answer before sending the next), then the same number in \`POST /v1/events/batch\` requests of
${count(D.batchSize)}, sent at once.

| Store | Events in through | End to end (deliveries / s) | Ceiling | Ratio |
|---|---|---|---|---|
${throughputRows.join('\n')}

The CPU those runs used per event delivered, from \`/proc\`: the server's process tree (all its
threads, and any workerd process it started), PostgreSQL (when it runs on this machine: the
backends of the run's database and the server's shared processes, such as the WAL writer; other
databases' backends left out) and the benchmark process (its senders and the verifying receiver).
The ${cpus().length} cores give ${count(cpus().length * 1000)} ms of CPU a second, so the sum bounds the rate this machine could
sustain were every core busy with nothing else.

| Store | Events in | Server | PostgreSQL | Benchmark | Sum | Bound on ${cpus().length} cores |
|---|---|---|---|---|---|---|
${cpuRows.join('\n')}

### Latency at a steady rate

${D.steadyRate} events / s for ${D.steadySeconds} s through \`POST /v1/events\`, one per request; ingest (the scheduled POST) to
receipt. Beside it, the direct posts at the same rate.

| Store | p50 ingest→receipt | p99 | Ceiling: direct p50 | Direct p99 | All received within ${D.stepGraceMs / 1000} s of the last send |
|---|---|---|---|---|---|
${latencyRows.join('\n')}

### Highest steady rate

Steps of ${D.stepSeconds} s at ${D.steps.map(count).join(', ')} events / s (one per request), up until a step is not sustained
(halving below ${count(D.steps[0])} down to ${count(D.lowestStep)} when the first is not); the backlog drains between steps. **A rate is
sustained when every event sent in its step is accepted and received within ${D.stepGraceMs / 1000} s after the step's last
scheduled send, and the step's p99 ingest→receipt is at most ${count(D.stepP99LimitMs)} ms.** Beside it, the ceiling
(direct posts / s) of the same run.

| Store | Highest rate sustained | Ceiling | Steps (received in time, p99) |
|---|---|---|---|
${sustainedRows.join('\n')}

### A noisy neighbour

Another organization's webhook installation whose URL accepts connections and never answers (each attempt
waits for the engine's 10 s timeout, then is retried), owed ${D.noisyOwed} deliveries, while the healthy space
gets ${D.noisyRate} events / s for ${D.noisySeconds} s; beside it, the same load just before, without the neighbour. The last column
is the connections the hung URL held at the start and at the end of the run.

| Store | p50 alone | p99 alone | p50 with the neighbour | p99 with the neighbour | p99 ratio | Hung connections |
|---|---|---|---|---|---|---|
${noisyRows.join('\n')}

### Memory under load

The server's RSS (\`/proc/PID/status\`): the peak of samples taken every 200 ms from its start to its end
(every run above, the delivery engine alone included), and right after the ${D.steadyRate} events / s
run. Compare with the bare \`node:http\` server in the API section.

| Store | Peak server RSS | Server RSS after the steady run |
|---|---|---|
${loadMemoryRows.join('\n')}

### Idle memory with ${I.integrations} integrations

\`portico serve\` with \`PORTICO_WORKER_IDLE_SECONDS=${I.idleSeconds}\` and \`PORTICO_MAX_WORKERS=${I.integrations}\` (the default cap, 16, would stop
the least recently used). ${I.integrations} integrations (a minimal SDK integration, \`createIntegration\` with one handler,
bundled) are published and installed; installing dispatches the setup event, so each runs in its own
workerd process, a child of the server. Workers start one after another; should the first ones be stopped
for idleness before the last one has started, all of them get the setup event again at once (a configuration
edit) until all are live together: the column "Dispatches each" says how many each had. Measured 0.5 s after
the last dispatch, then again once the idle timeout has stopped every worker. RSS and PSS are read from
\`/proc\`; RSS counts pages the workerd processes share once per process, PSS splits them among the
processes sharing them.

| Store | Server at start (no worker) | Dispatches each | Server with the workers | workerd processes | Their RSS (sum) | Their PSS (sum) | Server + workerd RSS | Server after the idle timeout |
|---|---|---|---|---|---|---|---|---|
${idleRows.join('\n')}

## Dashboard

The built web app (\`packages/dashboard/dist\`), gzip at level 9:

| Assets | Size | gzip |
|---|---|---|
${dashboardRows.join('\n')}

Time to interactive: Debian's Chromium (headless, driven by playwright-core) signed in as an organization
admin, from the start of the navigation until the page's configuration form (its **Save** button) and its
**Deliveries** region are on screen, that is, the page's data has arrived and is rendered (by the page's own
clock: the first frame painted with both; \`scripts/time-to-content.mjs\` shows the requests behind it); the median of
${dashboard.loads ?? '—'} loads with an empty cache (a new browser profile each time) and of as many with a warm one (the
same profile). The server is \`portico serve\` (SQLite) on this machine.

| Page | Empty cache | Warm cache |
|---|---|---|
${ttiRows.join('\n')}

## portico dev

\`portico dev\` (scripts/bench-dev.mjs) on an integration made by \`portico new\` outside the repository. Start: from
running the command until it has printed its links (build, platform, seeding, publish, the worker started,
the installations made). Save to live: from writing \`src/index.ts\` until a component render through the API
shows the change (rebuild, publish, the new version's workerd worker started).

| Measure | Time |
|---|---|
${devRows.join('\n')}

## Peers

What a team would build instead of Portico, measured beside it in this run with the same load: a
\`node:http\` ingest route (\`scripts/bench-peer-server.mjs\`: bearer token, JSON body, the event
validated, one delivery job enqueued per event; one event per request, and a batch route taking up to
1,000) and, in the same process, a worker that signs each delivery with \`@portico/webhooks\` and POSTs
it over kept-alive \`node:http\` connections (\`scripts/bench-queue-worker.mjs\`; Portico's engine posts with undici, decision 063) to the same verifying receiver, ${PEER_SETTINGS.concurrency} at a time (the engine's default cap
per destination; for this one URL Portico's cap per endpoint, 8, is the lower), 4 attempts with backoff: BullMQ on the machine's Redis, BullMQ again on a Redis
started for the run that syncs its append-only file before it answers (\`appendfsync always\`: an
acknowledged event is on disk, Portico's guarantee), and graphile-worker on PostgreSQL (a
database of its own). Each peer runs as a child process beside a \`portico serve\` of its own on the
same store (both up at once, each with its own receiver), and both are loaded as Portico is in the
delivery runs above: a warm-up of ${count(D.warmup)} events in batches and as many one per request; then ${PEER_SETTINGS.pairedRounds} rounds,
each a run of ${count(D.events)} events one per request from ${D.senders} senders for each of the two, then a run of as many
in batches of ${count(D.batchSize)} sent at once for each in the other order, each run until the last is received; the
one that goes first changes each round, so that both meet this shared machine in the same state
(its speed moves by 20–40 % within minutes). Each figure below is the median of the rounds; each
ratio, the median (lowest–highest) of the rounds' ratios. Then the peer runs at ${D.steadyRate} events / s for
${D.steadySeconds} s, one per request, for the latency from the scheduled send to receipt; Portico's latency is its
delivery runs' above.

CPU per delivered event is read from \`/proc\`: the server's process tree (Portico's, or the peer's),
plus its store's: PostgreSQL's (the backends of the run's database and the server's shared processes)
or Redis's (its pid from \`INFO server\`). The benchmark process (senders and receiver), the same work
for all of them, is left out. Redis and PostgreSQL's shared processes serve the whole machine, so another
client's work in the same seconds counts too.
Store operations per event: Redis commands from \`INFO commandstats\` (those BullMQ's Lua scripts run
included); for PostgreSQL, transactions and rows from \`pg_stat_database\` for the run's database
(\`pg_stat_statements\` is not loaded here), read 2.5 s after each run of the first round so every
backend has reported.
The peers do less than Portico: no duplicate \`eventId\` check, no routing, no integration, no delivery
log${bullmq && !bullmq.skipped ? `; and the machine's Redis runs with ${bullmq.durability}, so the first BullMQ rows' acknowledged events are not durable as Portico's are (synced before the answer)` : ''}.

| System | Events in | Deliveries / s | CPU per delivered event | Store operations per event | p50 ingest→receipt at ${D.steadyRate} / s | p99 |
|---|---|---|---|---|---|---|
${peerTable.systems.join('\n')}

Ratios, measured in this run, round by round: deliveries / s, Portico's ÷ the peer's; CPU, the peer's
CPU per delivered event ÷ Portico's; the median (lowest–highest) of the ${PEER_SETTINGS.pairedRounds} rounds. Either at 1.00 or above:
Portico ahead.

| Portico / peer | Events in | Deliveries / s | CPU per delivered event |
|---|---|---|---|
${peerTable.ratios.join('\n')}

Portico's delivery engine alone, from the delivery runs above: deliveries asked for through
\`POST /v1/installations/{id}/deliveries\` (the route the webhook integration calls) by ${D.senders} senders, no routing
or dispatch, beside the whole pipeline; latency at ${D.steadyRate} / s from asking to receipt.

| Store | Engine alone | End to end | Engine alone p50 | p99 |
|---|---|---|---|---|
${engineRows.join('\n')}

## Metrics and tracing

What observability costs the pipeline (scripts/bench-observability.mjs). Metrics are always on:
their work per delivered event (the counters and histograms of its ingest, dispatch and attempt) is
timed in the benchmark process and set beside the server's CPU per delivered event. So is tracing's
(its four spans per event made through the server's hooks, batched, and exported as OTLP/HTTP
protobuf to a receiver in another process; the CPU of every thread of the benchmark process,
tracing on less tracing off). And the delivery benchmark's throughput runs
(${count(OBSERVABILITY_SETTINGS.events)} events one per request, then in batches), tracing off and on (to a receiver on 127.0.0.1,
every span sampled), for ${OBSERVABILITY_SETTINGS.rounds} rounds on each back end: odd rounds off first, even rounds on first.

| Back end | Tracing | Round | One per request | Server CPU / event | Batches |
|---|---|---|---|---|---|
${observability.rows.join('\n')}

${observability.summary.join('\n')}

\`/metrics\` during the delivery run (scraped halfway through the ${count(D.events)} events sent one per
request, and at the end; counts since the run began):

| Back end | Halfway | At the end |
|---|---|---|
${scrapeRows.join('\n')}
`;
// Sections written by hand (one change's measurements, dated) stay; the report's own are replaced.
const benchmarksFile = new URL('../BENCHMARKS.md', import.meta.url);
const previous = existsSync(benchmarksFile) ? readFileSync(benchmarksFile, 'utf8') : undefined;
writeFileSync(benchmarksFile, withHandWrittenSections(report, previous));
console.log('wrote BENCHMARKS.md');
