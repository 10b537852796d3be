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
  sendBatches,
  sendSingles,
  sendSteadily,
  serverSecrets,
  sleep,
  startServer,
  stopChild,
  stopServer,
  warmUp,
  webhookToReceiver,
  withPostgresDatabase,
} from './bench-support.mjs';

export const PEER_SETTINGS = {
  /**
   * Jobs in flight in each peer's worker: Portico's default cap per destination. All go to one URL,
   * and Portico's cap per endpoint (8) is the lower: the peers may have twice as many in flight.
   */
  concurrency: 16,
  /**
   * Rounds of `npm run bench`'s comparison: Portico and the peer take turns, both up at once, and
   * each ratio is the median (lowest–highest) of the rounds' (measurePeer).
   */
  pairedRounds: 5,
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

/** The event every system is sent: its id, and the rest the same. */
export const event = (eventId) => ({ type: 'space_content_updated', eventId, spaceId: 'docs', revisionId: 'r' });

/**
 * A system under load through its HTTP API, with its own verifying receiver: `call`, its ingest
 * `paths`, the server's `pid`, its store's `cpu()` (ms; undefined when in process or not on this
 * machine) and `activity()` (counts, or undefined), `untilReceived(ids, what)`, and `close()`.
 */
function sideOf({ label, pid, call, paths, store, received, close }) {
  return {
    label,
    pid,
    call,
    paths,
    store,
    received,
    close,
    untilReceived: async (ids, what) => {
      if (!(await receivedBy(received, ids, performance.now() + DRAIN_LIMIT_MS)))
        throw new Error(`${label}: ${what}: not every delivery arrived within ${DRAIN_LIMIT_MS / 1000} s`);
    },
  };
}

/** A peer's server, started with `peerEnv`, posting to a receiver of its own. */
async function openPeer(label, o, peerEnv, store) {
  const received = new Map();
  const secret = `whsec_${randomBytes(16).toString('hex')}`;
  const receiver = createReceiverServer({ secret, work: (e) => received.set(e.eventId, performance.now()) });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const closeReceiver = () => {
    receiver.close();
    receiver.closeAllConnections();
  };
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
  } catch (error) {
    closeReceiver();
    throw error;
  }
  return sideOf({
    label,
    pid: peer.child.pid,
    call: apiCaller(peer.url, token),
    paths: { single: '/events', batch: '/events/batch' },
    store,
    received,
    close: async () => {
      await stopChild(peer.child, 10_000);
      closeReceiver();
    },
  });
}

/**
 * `portico serve` with `env` (this checkout's, or the built checkout `tree`'s), its webhook
 * integration posting to a receiver of its own (as in the delivery runs).
 */
export async function openPortico(label, env, store, tree = undefined) {
  const received = new Map();
  const { child, call } = await startServer({ ...serverSecrets(), ...env }, tree);
  let receiver;
  try {
    ({ receiver } = await webhookToReceiver(call, received));
  } catch (error) {
    await stopServer(child);
    throw error;
  }
  return sideOf({
    label,
    pid: child.pid,
    call,
    paths: { single: '/v1/events', batch: '/v1/events/batch' },
    store,
    received,
    close: async () => {
      await stopServer(child);
      receiver.close();
      receiver.closeAllConnections();
    },
  });
}

/**
 * One throughput run: `o.events` fresh events one per request from `o.senders` senders, or in
 * batches of `o.batchSize` sent at once, until the last is received. With `counted`, the store's
 * activity per event too.
 */
export async function throughputRun(side, o, prefix, inBatches, counted) {
  const ids = Array.from({ length: o.events }, (_, i) => `${prefix}_${i}`);
  const before = counted ? await side.store.activity() : undefined;
  const cpu = cpuPerEvent(side.pid, side.store.cpu);
  const started = performance.now();
  if (inBatches) await sendBatches({ call: side.call, path: side.paths.batch, event, ids, batchSize: o.batchSize });
  else await sendSingles({ ids, senders: o.senders, send: (id) => side.call('POST', side.paths.single, event(id)) });
  const ingestMs = performance.now() - started;
  await side.untilReceived(ids, inBatches ? 'batches' : 'one event per request');
  const run = { perSecond: (o.events * 1000) / (performance.now() - started), ingestMs, cpu: cpu(o.events) };
  if (counted) run.store = perEvent(before, await side.store.activity(), o.events);
  return run;
}

/**
 * The run of the median total CPU among `runs` (its rate, its CPU split, its store counts), with
 * the median rate in place of its own; the store counts are the first run's (only it counts them).
 */
function medianRun(runs) {
  const by = (key) => [...runs].sort((a, b) => key(a) - key(b))[Math.floor((runs.length - 1) / 2)];
  return { ...by((r) => cpuTotal(r.cpu)), perSecond: by((r) => r.perSecond).perSecond, store: runs[0].store };
}

/**
 * Loads the `sides` (a peer alone, or Portico and a peer, both up at once) as bench-deliveries.mjs
 * loads Portico: each gets the warm-up, then `o.rounds` rounds, each a run one event per request
 * for every side, then a run in batches for every side in the other order; the side that goes first
 * changes each round, so both meet the machine in the same state. Then the last side (the peer) runs
 * at a steady rate for the latency. Answers per side its runs (`rounds`) and their medians.
 */
async function loadSides(sides, o) {
  for (const side of sides)
    await warmUp({ call: side.call, paths: side.paths, event, untilReceived: side.untilReceived, ...o });
  const runs = sides.map(() => ({ single: [], batch: [] }));
  for (let round = 0; round < o.rounds; round++) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const r = await throughputRun(side, o, `r${round}_single`, false, round === 0);
      runs[sides.indexOf(side)].single.push(r);
      console.log(`  ${side.label}: ${Math.round(r.perSecond)} deliveries / s end to end, one per request`);
    }
    for (const side of [...order].reverse()) {
      const r = await throughputRun(side, o, `r${round}_batch`, true, round === 0);
      runs[sides.indexOf(side)].batch.push(r);
      console.log(
        `  ${side.label}: ${Math.round(r.perSecond)} deliveries / s end to end, in batches (accepted in ${Math.round(r.ingestMs)} ms)`,
      );
    }
  }
  const peer = sides.at(-1);
  const run = await sendSteadily({
    rate: o.steadyRate,
    seconds: o.steadySeconds,
    maxInFlight: o.maxInFlight,
    send: (i) => peer.call('POST', peer.paths.single, event(`steady_${i}`)),
  });
  if (run.failure) throw run.failure;
  const steadyIds = Array.from({ length: run.count }, (_, i) => `steady_${i}`);
  await peer.untilReceived(steadyIds, 'the steady run');
  const latencies = latenciesOf(peer.received, steadyIds, run.scheduled);
  const steady = { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  console.log(
    `  ${peer.label}: ${o.steadyRate} events / s for ${o.steadySeconds} s: p50 ${steady.p50.toFixed(1)} ms, p99 ${steady.p99.toFixed(1)} ms`,
  );
  return sides.map((side, i) => ({
    label: side.label,
    rounds: runs[i],
    single: medianRun(runs[i].single),
    batch: medianRun(runs[i].batch),
    ...(side === peer ? steady : {}),
  }));
}

/**
 * Loads one peer (its server started with `peerEnv`; `store` is `{ cpu, activity }` of its Redis or
 * PostgreSQL), alone or, with `beside` (`{ label, env, store }`: Portico's settings and its store),
 * in rounds with `portico serve` up at the same time (loadSides). Answers the peer's result, and
 * Portico's as `portico` with `beside`.
 */
export async function measurePeer(label, o, peerEnv, store, beside) {
  const sides = [];
  try {
    if (beside) sides.push(await openPortico(beside.label, beside.env, beside.store));
    sides.push(await openPeer(label, o, peerEnv, store));
    const results = await loadSides(sides, { rounds: 1, ...o });
    return { ...results.at(-1), ...(beside ? { portico: results[0] } : {}) };
  } finally {
    for (const side of sides.reverse()) await side.close();
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

export async function benchBullmq(o, label = 'BullMQ', beside = undefined) {
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
      beside,
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

export async function benchGraphileWorker(o, beside = undefined) {
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
      beside,
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
async function benchDurableBullmq(o, beside) {
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
    return await benchBullmq({ ...o, redisUrl: url }, DURABLE_BULLMQ, beside);
  } finally {
    redis.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `fn(beside)`: the settings of a `portico serve` on `store` ('SQLite', or 'PostgreSQL' in a
 * database of its own when one is configured, else none) to load beside a peer (measurePeer); its
 * data is removed afterwards.
 */
async function withPortico(store, fn) {
  if (store === 'PostgreSQL' && !postgresUrl()) return fn(undefined);
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-pair-'));
  try {
    if (store === 'SQLite')
      return await fn({
        label: 'Portico, SQLite',
        env: { PORTICO_DATA_DIR: dir },
        store: { cpu: undefined, activity: async () => undefined },
      });
    return await withPostgresDatabase('portico_bench_pair', async (url) =>
      fn({
        label: 'Portico, PostgreSQL',
        env: { PORTICO_DATA_DIR: dir, PORTICO_DATABASE_URL: url },
        store: { cpu: await postgresCpu(url), activity: postgresActivity(url) },
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The peers, with the delivery benchmark's load (`DELIVERY_SETTINGS`, overridden by `options`). */
export async function benchPeers(options = {}) {
  const o = { ...DELIVERY_SETTINGS, ...PEER_SETTINGS, ...options };
  const paired = { ...o, rounds: o.pairedRounds };
  const peers = [
    await withPortico('SQLite', (beside) => benchBullmq(paired, 'BullMQ', beside)),
    await withPortico('SQLite', (beside) => benchDurableBullmq(paired, beside)),
    await withPortico('PostgreSQL', (beside) => benchGraphileWorker(paired, beside)),
  ];
  for (const r of peers) if (r.skipped) console.warn(`  ${r.label} not measured: ${r.skipped}`);
  return peers;
}

const two = (n) => (n === undefined || !Number.isFinite(n) ? '—' : n.toFixed(2));
const ms = (us) => (us === undefined || !Number.isFinite(us) ? '—' : `${(us / 1000).toFixed(2)} ms`);
const whole = (n) => Math.round(n).toLocaleString('en-US');
const lat = (n) =>
  n === undefined ? '—' : Number.isFinite(n) ? (n < 100 ? `${n.toFixed(2)} ms` : `${whole(n)} ms`) : 'not all received';
/** CPU per delivered event in µs: the server's process tree and its store's (when measured). */
export const cpuTotal = (cpu) => cpu.server + (cpu.database ?? 0);

/** The median of some numbers (of an even count, the mean of the middle two). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[Math.floor((sorted.length - 1) / 2)] + sorted[Math.ceil((sorted.length - 1) / 2)]) / 2;
}

/** The median of some ratios and their range: `1.02 (0.95–1.10)`; one ratio alone: `1.02`. */
export function medianRange(values) {
  if (values.length === 1) return two(values[0]);
  const sorted = [...values].sort((a, b) => a - b);
  return `${two(median(values))} (${two(sorted[0])}–${two(sorted.at(-1))})`;
}
const cpuCell = (cpu, storeName) =>
  `${ms(cpuTotal(cpu))} (server ${ms(cpu.server)}${storeName ? `, ${storeName} ${ms(cpu.database)}` : ''})`;
const storeCell = (kind, counts) => {
  if (counts === undefined) return '—';
  if (kind === 'redis') return `${two(counts.commands)} Redis commands`;
  return `${two(counts.transactions)} transactions, ${two(counts.rowsWritten)} rows written, ${two(counts.rowsRead)} rows read`;
};

/**
 * The Peers section's rows: `systems` (each peer, and Portico measured beside it, one event per
 * request and in batches: the medians of the rounds) and `ratios` (Portico on SQLite against
 * BullMQ, on PostgreSQL against graphile-worker: the median, lowest–highest, of the rounds' ratios).
 * `peers` is benchPeers' results; `delivery`, bench-deliveries', gives Portico's latency at the
 * steady rate (the peers' is measured beside them).
 */
export function peerRows(peers, batchSize, delivery = []) {
  const systems = [];
  const ways = (batch) => (batch ? `batches of ${whole(batchSize)}` : 'one event per request');
  const latency = Object.fromEntries(delivery.map((r) => [r.label, r]));
  for (const p of peers) {
    if (p.skipped) {
      systems.push(`| ${p.label}: not measured (${p.skipped}) | — | — | — | — | — | — |`);
      continue;
    }
    const redis = p.store?.startsWith('Redis');
    if (p.portico) {
      const onPostgres = p.portico.label.endsWith('PostgreSQL');
      const steady = latency[onPostgres ? 'PostgreSQL' : 'SQLite'] ?? {};
      for (const batch of [false, true]) {
        const run = batch ? p.portico.batch : p.portico.single;
        systems.push(
          `| ${p.portico.label}, beside ${p.label} | ${ways(batch)} | ${whole(run.perSecond)} / s | ${cpuCell(run.cpu, onPostgres ? 'PostgreSQL' : undefined)} | ${onPostgres ? storeCell('postgres', run.store) : '— (in process)'} | ${lat(steady.p50)} | ${lat(steady.p99)} |`,
        );
      }
    }
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
  const ratios = peerRatios(peers).map(
    (r) => `| Portico, ${r.store} / ${r.peer} | ${ways(r.batch)} | ${medianRange(r.rates)} | ${medianRange(r.cpus)} |`,
  );
  return { systems, ratios };
}

/**
 * Portico against each peer it was measured beside (SQLite against BullMQ, PostgreSQL against
 * graphile-worker), one event per request and in batches, round by round: `rates`, Portico's
 * deliveries per second ÷ the peer's; `cpus`, the peer's CPU per delivered event ÷ Portico's (1 or
 * more: Portico ahead); `rate` and `cpu`, their medians.
 */
export function peerRatios(peers) {
  const ratios = [];
  for (const p of peers) {
    if (p.skipped || !p.portico) continue;
    for (const batch of [false, true]) {
      const ours = batch ? p.portico.rounds.batch : p.portico.rounds.single;
      const theirs = batch ? p.rounds.batch : p.rounds.single;
      const rates = ours.map((r, i) => r.perSecond / theirs[i].perSecond);
      const cpus = ours.map((r, i) => cpuTotal(theirs[i].cpu) / cpuTotal(r.cpu));
      ratios.push({
        store: p.portico.label.replace(/^Portico, /, ''),
        peer: p.label,
        batch,
        rates,
        cpus,
        rate: median(rates),
        cpu: median(cpus),
      });
    }
  }
  return ratios;
}

// On its own: `node scripts/bench-peers.mjs [RUNS] [--full]`: the comparison `npm run bench` makes
// (Portico beside each peer, in rounds), shortened (500 events a run, 3 rounds, 3 s at the steady
// rate; PORTICO_BENCH_EVENTS and PORTICO_BENCH_STEADY_SECONDS change them), or with --full at the
// delivery benchmark's load; RUNS times, then the spread of each ratio's median over the runs.
// Portico's latency at the steady rate comes from the delivery runs of `npm run bench`, not measured here.
if (import.meta.url === `file://${process.argv[1]}`) {
  const runs = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 1);
  const full = process.argv.includes('--full');
  const settings = full
    ? {}
    : {
        events: Number(process.env.PORTICO_BENCH_EVENTS ?? 500),
        warmup: 1000,
        batchSize: 250,
        pairedRounds: 3,
        steadySeconds: Number(process.env.PORTICO_BENCH_STEADY_SECONDS ?? 3),
      };
  const batchSize = settings.batchSize ?? DELIVERY_SETTINGS.batchSize;
  const spread = new Map();
  for (let run = 1; run <= runs; run++) {
    console.log(`Run ${run} of ${runs} (${full ? 'full' : `short: ${JSON.stringify(settings)}`})…`);
    const peers = await benchPeers(settings);
    const { systems, ratios } = peerRows(peers, batchSize);
    console.log(
      '| System | Events in | Deliveries / s | CPU per delivered event | Store operations per event | p50 | p99 |',
    );
    for (const row of systems) console.log(row);
    console.log('| Portico / peer | Events in | Deliveries / s | CPU per delivered event (peer ÷ Portico) |');
    for (const row of ratios) console.log(row);
    for (const r of peerRatios(peers)) {
      const key = `Portico, ${r.store} / ${r.peer} | ${r.batch ? `batches of ${whole(batchSize)}` : 'one event per request'}`;
      spread.set(key, [...(spread.get(key) ?? []), r]);
    }
  }
  if (runs > 1) {
    console.log(`\nOver ${runs} runs, each run's median, then their median (lowest–highest):\n`);
    console.log('| Portico / peer | Events in | Deliveries / s | CPU per delivered event (peer ÷ Portico) |');
    console.log('|---|---|---|---|');
    for (const [key, rs] of spread) {
      console.log(`| ${key} | ${medianRange(rs.map((r) => r.rate))} | ${medianRange(rs.map((r) => r.cpu))} |`);
    }
  }
}
