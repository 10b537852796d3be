// Portico's peers: the pipeline a team would build instead (scripts/bench-peer-server.mjs: an HTTP
// ingest route → a job queue → a worker that signs and POSTs), on BullMQ (Redis) and on
// graphile-worker (PostgreSQL), each in a process of its own, loaded exactly as Portico is in
// scripts/bench-deliveries.mjs: a warm-up, the same events one per request from the same senders,
// then in batches, then a steady rate for latency; deliveries to the same verifying receiver.
//
// `node scripts/bench-peers.mjs` runs a short comparison on its own (Portico's delivery runs,
// shortened, then the peers) and prints the table bench.mjs writes; PORTICO_BENCH_EVENTS,
// PORTICO_BENCH_STEADY_SECONDS shrink it further.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createReceiverServer } from '@portico-examples/webhook-receiver';
import { DELIVERY_SETTINGS } from './bench-deliveries.mjs';
import {
  apiCaller,
  cpuMs,
  cpuPerEvent,
  endingWithUs,
  latenciesOf,
  percentile,
  perEvent,
  postgresActivity,
  postgresCpu,
  postgresUrl,
  receivedBy,
  sendSteadily,
  serverSecrets,
  sleep,
  startServer,
  stopChild,
  stopServer,
  warmUp,
  withPostgresDatabase,
} from './bench-support.mjs';

export const PEER_SETTINGS = {
  /**
   * Jobs in flight in each peer's worker: Portico's default cap per destination. All go to one URL,
   * and Portico's cap per endpoint (8) is the lower: the peers may have twice as many in flight.
   */
  concurrency: 16,
  redisUrl: process.env.PORTICO_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
};

/** How long a backlog may take to drain after a run before the benchmark gives up waiting. */
const DRAIN_LIMIT_MS = 120_000;

/** The installed version of a package (read from node_modules at the repository root). */
function versionOf(name) {
  try {
    return JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')).version;
  } catch {
    return undefined;
  }
}

const serverScript = new URL('./bench-peer-server.mjs', import.meta.url).pathname;

/**
 * Starts a peer server with `env` (and PATH) only; answers `{ child, url }` once it listens. Node
 * flags for it (`--cpu-prof --cpu-prof-dir=DIR`, to profile the floor beside Portico) come from
 * PORTICO_BENCH_PEER_NODE_FLAGS.
 */
function startPeer(env) {
  const flags = (process.env.PORTICO_BENCH_PEER_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, serverScript], {
      env: { PATH: process.env.PATH, ...env },
      // Its standard input stays open while this process lives: the peer ends when it closes.
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += chunk;
      if (err.length > 100_000) err = err.slice(-50_000);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the ${env.PEER_QUEUE} peer did not start within 30 s: ${err}`));
    }, 30_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const url = /^listening on (http:\/\/\S+)/.exec(line)?.[1];
      if (!url) return;
      clearTimeout(timer);
      resolve({ child, url });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the ${env.PEER_QUEUE} peer exited ${code}: ${err}`));
    });
  });
}

/**
 * Loads one peer as bench-deliveries.mjs loads Portico, the peer's server started with `peerEnv`;
 * `store` is `{ cpu, activity }` of its Redis or PostgreSQL (`cpu()` in ms, `activity()` counts).
 */
export async function measurePeer(label, o, peerEnv, store) {
  const received = new Map();
  const secret = `whsec_${randomBytes(16).toString('hex')}`;
  const receiver = createReceiverServer({ secret, work: (e) => received.set(e.eventId, performance.now()) });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const token = `peer_${randomBytes(16).toString('hex')}`;
  let peer;
  try {
    peer = await startPeer({
      ...peerEnv,
      PEER_TOKEN: token,
      PEER_RECEIVER_URL: `http://127.0.0.1:${receiver.address().port}/hook`,
      PEER_SECRET: secret,
      PEER_CONCURRENCY: String(o.concurrency),
    });
    const call = apiCaller(peer.url, token);
    const event = (eventId) => ({ type: 'space_content_updated', eventId, spaceId: 'docs', revisionId: 'r' });
    const untilReceived = async (ids, what) => {
      if (!(await receivedBy(received, ids, performance.now() + DRAIN_LIMIT_MS)))
        throw new Error(`${label}: ${what}: not every delivery arrived within ${DRAIN_LIMIT_MS / 1000} s`);
    };

    await warmUp({ call, paths: { single: '/events', batch: '/events/batch' }, event, untilReceived, ...o });

    // One event per request: `events` events from `senders` senders, until the last is received.
    const singleIds = Array.from({ length: o.events }, (_, i) => `single_${i}`);
    let activity = await store.activity();
    let cpu = cpuPerEvent(peer.child.pid, store.cpu);
    let started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: o.senders }, async () => {
        while (next < o.events) await call('POST', '/events', event(singleIds[next++]));
      }),
    );
    await untilReceived(singleIds, 'one event per request');
    const single = { perSecond: (o.events * 1000) / (performance.now() - started), cpu: cpu(o.events) };
    single.store = perEvent(activity, await store.activity(), o.events);
    console.log(`  ${label}: ${Math.round(single.perSecond)} deliveries / s end to end (POST /events)`);

    // Batches: the same number of events in requests of `batchSize`, all sent at once.
    const batchIds = Array.from({ length: o.events }, (_, i) => `batch_${i}`);
    const batches = [];
    for (let i = 0; i < batchIds.length; i += o.batchSize) batches.push(batchIds.slice(i, i + o.batchSize));
    activity = await store.activity();
    cpu = cpuPerEvent(peer.child.pid, store.cpu);
    started = performance.now();
    await Promise.all(
      batches.map(async (ids) => {
        const { results } = await call('POST', '/events/batch', { events: ids.map((id) => event(id)) });
        const refused = results.find((r) => r.error !== undefined);
        if (results.length !== ids.length || refused)
          throw new Error(`the batch was not accepted whole: ${JSON.stringify(refused ?? results.length)}`);
      }),
    );
    const ingestMs = performance.now() - started;
    await untilReceived(batchIds, 'batches');
    const batch = { perSecond: (o.events * 1000) / (performance.now() - started), ingestMs, cpu: cpu(o.events) };
    batch.store = perEvent(activity, await store.activity(), o.events);
    console.log(
      `  ${label}: ${Math.round(batch.perSecond)} deliveries / s end to end (POST /events/batch, accepted in ${Math.round(ingestMs)} ms)`,
    );

    // Latency at a steady rate, ingest to receipt.
    const run = await sendSteadily({
      rate: o.steadyRate,
      seconds: o.steadySeconds,
      maxInFlight: o.maxInFlight,
      send: (i) => call('POST', '/events', event(`steady_${i}`)),
    });
    if (run.failure) throw run.failure;
    const steadyIds = Array.from({ length: run.count }, (_, i) => `steady_${i}`);
    await untilReceived(steadyIds, 'the steady run');
    const latencies = latenciesOf(received, steadyIds, run.scheduled);
    const steady = { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
    console.log(
      `  ${label}: ${o.steadyRate} events / s for ${o.steadySeconds} s: p50 ${steady.p50.toFixed(1)} ms, p99 ${steady.p99.toFixed(1)} ms`,
    );
    return { label, single, batch, ...steady };
  } finally {
    if (peer) await stopChild(peer.child, 10_000);
    receiver.close();
    receiver.closeAllConnections();
  }
}

/** Redis's server (its pid from INFO, its CPU from /proc when it runs here) and its command counts. */
async function redisStore(redis) {
  const info = await redis.info('server');
  const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
  let here = false;
  try {
    here = readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith('redis-server');
  } catch {}
  const persistence = await redis.info('persistence');
  const config = async (name) => {
    try {
      return (await redis.config('GET', name))[1];
    } catch {
      return undefined;
    }
  };
  return {
    version: /redis_version:(\S+)/.exec(info)?.[1],
    appendonly: /aof_enabled:(\d)/.exec(persistence)?.[1] === '1',
    appendfsync: await config('appendfsync'),
    cpu: here ? () => cpuMs(pid) : undefined,
    /** Commands run (those of BullMQ's Lua scripts included; INFO itself not), from INFO commandstats. */
    activity: async () => {
      let commands = 0;
      for (const [, name, calls] of (await redis.info('commandstats')).matchAll(/cmdstat_([^:]+):calls=(\d+)/g))
        if (name !== 'info') commands += Number(calls);
      return { commands };
    },
  };
}

export async function benchBullmq(o, label = 'BullMQ') {
  let bullmq;
  let Redis;
  try {
    bullmq = await import('bullmq');
    ({ Redis } = await import('ioredis'));
  } catch (error) {
    return { label, skipped: `bullmq or ioredis is not installed (${error.message})` };
  }
  const redis = new Redis(o.redisUrl, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    return { label, skipped: `Redis at ${o.redisUrl} is not reachable (${error.message})` };
  }
  const name = `portico-peer-${randomBytes(4).toString('hex')}`;
  try {
    const store = await redisStore(redis);
    const result = await measurePeer(
      label,
      o,
      { PEER_QUEUE: 'bullmq', PEER_QUEUE_NAME: name, PEER_REDIS_URL: o.redisUrl },
      { cpu: store.cpu, activity: store.activity },
    );
    return {
      ...result,
      version: versionOf('bullmq'),
      store: `Redis ${store.version ?? ''}`.trim(),
      durability: store.appendonly ? `append-only file, fsync ${store.appendfsync}` : 'no append-only file',
      storeCpuMeasured: store.cpu !== undefined,
    };
  } finally {
    const queue = new bullmq.Queue(name, { connection: { url: o.redisUrl } });
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close().catch(() => {});
    redis.disconnect();
  }
}

export async function benchGraphileWorker(o) {
  try {
    await import('graphile-worker');
  } catch (error) {
    return { label: 'graphile-worker', skipped: `graphile-worker is not installed (${error.message})` };
  }
  if (!postgresUrl())
    return { label: 'graphile-worker', skipped: 'PORTICO_BENCH_DATABASE_URL / PORTICO_TEST_DATABASE_URL not set' };
  // A database of its own, dropped afterwards (with the peer's connections, should any be left).
  return withPostgresDatabase('portico_bench_peer', async (url) => {
    const cpu = await postgresCpu(url);
    const result = await measurePeer(
      'graphile-worker',
      o,
      { PEER_QUEUE: 'graphile-worker', PEER_DATABASE_URL: url },
      { cpu, activity: postgresActivity(url) },
    );
    return {
      ...result,
      version: versionOf('graphile-worker'),
      store: 'PostgreSQL',
      storeCpuMeasured: cpu !== undefined,
    };
  });
}

/**
 * Portico's floor on SQLite, or on PostgreSQL when `databaseUrl` is given (scripts/bench-floor-queue.mjs):
 * `portico serve` makes the database (its schema, an installation of the webhook integration and
 * one delivered event, whose rows the floor copies), then the floor is loaded as the peers are.
 */
export async function benchFloor(o, databaseUrl) {
  const label = databaseUrl ? "Portico's floor, PostgreSQL" : "Portico's floor, SQLite";
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-floor-'));
  try {
    await seedPortico({ PORTICO_DATA_DIR: dir, ...(databaseUrl ? { PORTICO_DATABASE_URL: databaseUrl } : {}) });
    const peerEnv = databaseUrl
      ? { PEER_QUEUE: 'portico-floor', PEER_DATABASE_URL: databaseUrl }
      : { PEER_QUEUE: 'portico-floor', PEER_SQLITE_FILE: join(dir, 'portico.db') };
    const store = databaseUrl
      ? { cpu: await postgresCpu(databaseUrl), activity: postgresActivity(databaseUrl) }
      : { cpu: undefined, activity: async () => undefined };
    return { ...(await measurePeer(label, o, peerEnv, store)), store: databaseUrl ? 'PostgreSQL' : 'SQLite' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A Portico database with the webhook integration installed in a space and one event delivered. */
async function seedPortico(env) {
  const hook = createHttpServer((request, response) => request.resume().on('end', () => response.writeHead(204).end()));
  await new Promise((r) => hook.listen(0, '127.0.0.1', r));
  const { child, call } = await startServer({ ...serverSecrets(), ...env });
  try {
    await call('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    await call('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' });
    const org = (await call('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).id;
    const space = (await call('POST', `/v1/installations/${org}/spaces/docs`)).id;
    const url = `http://127.0.0.1:${hook.address().port}/hook`;
    await call('PATCH', `/v1/installations/${space}/configuration`, { url, space_content_updated: true });
    await call('POST', '/v1/events', {
      type: 'space_content_updated',
      eventId: 'seed',
      spaceId: 'docs',
      revisionId: 'r',
    });
    const until = performance.now() + 30_000;
    while ((await call('GET', `/v1/installations/${space}/deliveries`))?.[0]?.status !== 'delivered') {
      if (performance.now() > until) throw new Error('the seeded event was not delivered within 30 s');
      await sleep(100);
    }
  } finally {
    await stopServer(child);
    hook.close();
  }
}

/** The label of BullMQ on a Redis that syncs its append-only file before it answers. */
export const DURABLE_BULLMQ = 'BullMQ, fsync always';

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * BullMQ with the guarantee Portico gives (an acknowledged event is on disk): a Redis of its own,
 * started here, that appends every write to its append-only file and syncs it before answering
 * (`appendfsync always`), as the machine's Redis (no append-only file) does not. Skipped when
 * `redis-server` cannot be started.
 */
async function benchDurableBullmq(o) {
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-redis-'));
  const port = await freePort();
  const command = endingWithUs([
    'redis-server',
    '--bind',
    '127.0.0.1',
    '--port',
    String(port),
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'yes',
    '--appendfsync',
    'always',
  ]);
  const redis = spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  // (A redis-server that could not be run at all emits only 'error'.)
  const exited = new Promise((resolve) => {
    redis.once('exit', resolve);
    redis.once('error', resolve);
  });
  let output = '';
  // Ready once it says so; otherwise why not, in its own words.
  const ready = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve('it was not ready within 10 s'), 10_000);
    const done = (why) => {
      clearTimeout(timer);
      resolve(why);
    };
    redis.once('error', (error) => done(error.message));
    redis.once('exit', (code) => done(`it exited ${code}: ${output.trim().split('\n').slice(-3).join(' / ')}`));
    for (const stream of [redis.stdout, redis.stderr])
      createInterface({ input: stream }).on('line', (line) => {
        output += `${line}\n`;
        if (line.includes('Ready to accept connections')) done(true);
      });
  });
  try {
    if (ready !== true) return { label: DURABLE_BULLMQ, skipped: `redis-server could not be started here (${ready})` };
    const url = `redis://127.0.0.1:${port}`;
    return await benchBullmq({ ...o, redisUrl: url }, DURABLE_BULLMQ);
  } finally {
    redis.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The peers, with the delivery benchmark's load (`DELIVERY_SETTINGS`, overridden by `options`). */
export async function benchPeers(options = {}) {
  const o = { ...DELIVERY_SETTINGS, ...PEER_SETTINGS, ...options };
  const peers = [await benchBullmq(o), await benchDurableBullmq(o), await benchGraphileWorker(o)];
  for (const r of peers) if (r.skipped) console.warn(`  ${r.label} not measured: ${r.skipped}`);
  return peers;
}

const two = (n) => (n === undefined || !Number.isFinite(n) ? '—' : n.toFixed(2));
const ms = (us) => (us === undefined || !Number.isFinite(us) ? '—' : `${(us / 1000).toFixed(2)} ms`);
const whole = (n) => Math.round(n).toLocaleString('en-US');
const lat = (n) => (Number.isFinite(n) ? (n < 100 ? `${n.toFixed(2)} ms` : `${whole(n)} ms`) : 'not all received');
/** CPU per delivered event in µs: the server's process tree and its store's (when measured). */
export const cpuTotal = (cpu) => cpu.server + (cpu.database ?? 0);

/** The median of some ratios (of an even count, the mean of the middle two) and their range: `1.02 (0.95–1.10)`. */
export function medianRange(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = (sorted[Math.floor((sorted.length - 1) / 2)] + sorted[Math.ceil((sorted.length - 1) / 2)]) / 2;
  return `${two(middle)} (${two(sorted[0])}–${two(sorted.at(-1))})`;
}
const cpuCell = (cpu, storeName) =>
  `${ms(cpuTotal(cpu))} (server ${ms(cpu.server)}${storeName ? `, ${storeName} ${ms(cpu.database)}` : ''})`;
const storeCell = (kind, counts) => {
  if (counts === undefined) return '—';
  if (kind === 'redis') return `${two(counts.commands)} Redis commands`;
  return `${two(counts.transactions)} transactions, ${two(counts.rowsWritten)} rows written, ${two(counts.rowsRead)} rows read`;
};

/**
 * The Peers section's rows: `systems` (Portico and its peers, each one event per request and in
 * batches) and `ratios` (Portico on SQLite against BullMQ, on PostgreSQL against graphile-worker).
 * `delivery` is bench-deliveries' results, `peers` benchPeers'.
 */
export function peerRows(delivery, peers, batchSize) {
  const systems = [];
  const ratios = [];
  const ways = (batch) => (batch ? `batches of ${whole(batchSize)}` : 'one event per request');
  for (const r of delivery) {
    const storeName = r.label === 'PostgreSQL' ? 'PostgreSQL' : undefined;
    const kind = r.label === 'PostgreSQL' ? 'postgres' : undefined;
    for (const [batch, run] of [
      [false, { perSecond: r.endToEnd, cpu: r.singleCpu, store: r.singleStore }],
      [true, r.batch && { perSecond: r.batch.endToEnd, cpu: r.batch.cpu, store: r.batch.store }],
    ]) {
      if (!run) continue;
      systems.push(
        `| Portico, ${r.label} | ${ways(batch)} | ${whole(run.perSecond)} / s | ${cpuCell(run.cpu, storeName)} | ${kind ? storeCell(kind, run.store) : '— (in process)'} | ${lat(r.p50)} | ${lat(r.p99)} |`,
      );
    }
  }
  for (const p of peers) {
    if (p.skipped) {
      systems.push(`| ${p.label}: not measured (${p.skipped}) | — | — | — | — | — | — |`);
      continue;
    }
    const redis = p.store?.startsWith('Redis');
    const on = redis ? `${p.store} (${p.durability})` : p.store;
    const queue = redis ? 'BullMQ' : p.label;
    const name = `HTTP ingest → ${queue} ${p.version ?? ''} on ${on} → signed POST`;
    for (const [batch, run] of [
      [false, p.single],
      [true, p.batch],
    ]) {
      systems.push(
        `| ${name} | ${ways(batch)} | ${whole(run.perSecond)} / s | ${cpuCell(run.cpu, redis ? 'Redis' : 'PostgreSQL')} | ${storeCell(redis ? 'redis' : 'postgres', run.store)} | ${lat(p.p50)} | ${lat(p.p99)} |`,
      );
    }
  }
  for (const r of peerRatios(delivery, peers)) {
    ratios.push(`| Portico, ${r.store} / ${r.peer} | ${ways(r.batch)} | ${two(r.rate)} | ${two(r.cpu)} |`);
  }
  return { systems, ratios };
}

/**
 * Portico against the peer a team would build on the same store (SQLite against BullMQ, PostgreSQL
 * against graphile-worker), one event per request and in batches: `rate`, Portico's deliveries per
 * second ÷ the peer's; `cpu`, the peer's CPU per delivered event ÷ Portico's (1 or more: Portico ahead).
 */
export function peerRatios(delivery, peers) {
  const portico = Object.fromEntries(delivery.map((r) => [r.label, r]));
  const peer = Object.fromEntries(peers.map((r) => [r.label, r]));
  const ratios = [];
  for (const [store, name] of [
    ['SQLite', 'BullMQ'],
    ['SQLite', DURABLE_BULLMQ],
    ['PostgreSQL', 'graphile-worker'],
  ]) {
    const a = portico[store];
    const b = peer[name];
    if (!a || !b || b.skipped) continue;
    for (const [batch, x, y] of [
      [false, { perSecond: a.endToEnd, cpu: a.singleCpu }, b.single],
      [true, a.batch && { perSecond: a.batch.endToEnd, cpu: a.batch.cpu }, b.batch],
    ]) {
      if (!x) continue;
      ratios.push({
        store,
        peer: name,
        batch,
        rate: x.perSecond / y.perSecond,
        cpu: cpuTotal(y.cpu) / cpuTotal(x.cpu),
      });
    }
  }
  return ratios;
}

// On its own: `node scripts/bench-peers.mjs [RUNS] [--full]`. A short comparison (Portico's delivery
// runs shortened: no rate steps beyond the first, a short noisy-neighbour run), or with --full the
// delivery benchmark's own load (2,000 events one per request and in batches of 1,000, 200 events / s
// for 10 s; no rate steps), then the peers under the same load; RUNS times, then the spread of each
// ratio over the runs.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { benchDeliveries } = await import('./bench-deliveries.mjs');
  const runs = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 1);
  const full = process.argv.includes('--full');
  const settings = full
    ? { steps: [], noisySeconds: 3 }
    : {
        events: Number(process.env.PORTICO_BENCH_EVENTS ?? 500),
        warmup: 1000,
        batchSize: 250,
        steadySeconds: Number(process.env.PORTICO_BENCH_STEADY_SECONDS ?? 3),
        steps: [100],
        stepSeconds: 1,
        lowestStep: 100,
        noisyOwed: 10,
        noisySeconds: 1,
        ceilingConcurrency: 16,
      };
  const batchSize = settings.batchSize ?? DELIVERY_SETTINGS.batchSize;
  const spread = new Map();
  for (let run = 1; run <= runs; run++) {
    console.log(`Run ${run} of ${runs}: Portico (${full ? 'full' : `short: ${JSON.stringify(settings)}`})…`);
    const delivery = await benchDeliveries(settings);
    console.log('Peers…');
    const peers = await benchPeers(settings);
    const { systems, ratios } = peerRows(delivery, peers, batchSize);
    console.log(
      '| System | Events in | Deliveries / s | CPU per delivered event | Store operations per event | p50 | p99 |',
    );
    for (const row of systems) console.log(row);
    console.log('| Portico / peer | Events in | Deliveries / s | CPU per delivered event (peer ÷ Portico) |');
    for (const row of ratios) console.log(row);
    for (const r of peerRatios(delivery, peers)) {
      const key = `Portico, ${r.store} / ${r.peer} | ${r.batch ? `batches of ${whole(batchSize)}` : 'one event per request'}`;
      spread.set(key, [...(spread.get(key) ?? []), r]);
    }
  }
  if (runs > 1) {
    console.log(`\nOver ${runs} runs, the median (lowest–highest):\n`);
    console.log('| Portico / peer | Events in | Deliveries / s | CPU per delivered event (peer ÷ Portico) |');
    console.log('|---|---|---|---|');
    for (const [key, rs] of spread) {
      console.log(`| ${key} | ${medianRange(rs.map((r) => r.rate))} | ${medianRange(rs.map((r) => r.cpu))} |`);
    }
  }
}
