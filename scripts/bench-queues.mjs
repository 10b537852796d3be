// Plain job queue baselines for the decision record about Portico's queue: BullMQ on Redis and
// graphile-worker on PostgreSQL, each doing the delivery engine's work per job (sign, POST to the
// verifying reference receiver) in a worker process of its own, fed from this process.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createReceiverServer } from '@portico-examples/webhook-receiver';
import pg from 'pg';
import {
  latenciesOf,
  measureDirect,
  percentile,
  postgresUrl,
  receivedBy,
  sendSteadily,
  stopChild,
  withPostgresDatabase,
} from './bench-support.mjs';

export const QUEUE_SETTINGS = {
  /** Jobs per throughput run, and the producers adding them one at a time (as the API's senders do). */
  jobs: 2000,
  producers: 8,
  /** Jobs in flight in the worker: the delivery engine's default cap per destination (all go to one URL). */
  concurrency: 16,
  /** The steady latency run, as for the platform. */
  steadyRate: 200,
  steadySeconds: 10,
  maxInFlight: 256,
  /** The ceiling measured here: the engine's client straight to the receiver, this many at a time. */
  ceilingConcurrency: 64,
  redisUrl: process.env.PORTICO_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
};

/** The installed version of a package (read from node_modules at the repository root). */
function versionOf(name) {
  try {
    return JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/** A delivery body as the webhook integration makes it for a space_content_updated event (after its eventId). */
const JOB_FIELDS = { type: 'space_content_updated', spaceId: 'docs', installationId: 'inst_bench', revisionId: 'r' };

const workerScript = new URL('./bench-queue-worker.mjs', import.meta.url).pathname;

/** Starts the worker process; answers once it prints "ready". */
function startWorker(env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [workerScript], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the ${env.BENCH_QUEUE} worker did not start within 30 s: ${err}`));
    }, 30_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.trim() !== 'ready') return;
      clearTimeout(timer);
      resolve({ child, stderr: () => err });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the ${env.BENCH_QUEUE} worker exited ${code}: ${err}`));
    });
  });
}

/**
 * Throughput (`jobs` added by `producers`, one at a time, until the last is received) and latency
 * (`steadyRate` jobs a second for `steadySeconds`, add → receipt) of one queue, whose `add(job)`
 * enqueues a delivery and whose worker runs with `workerEnv`.
 */
async function measureQueue(label, o, workerEnv, add) {
  const received = new Map();
  const secret = `whsec_${randomBytes(16).toString('hex')}`;
  const receiver = createReceiverServer({ secret, work: (e) => received.set(e.eventId, performance.now()) });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  let worker;
  try {
    worker = await startWorker({
      ...workerEnv,
      BENCH_RECEIVER_URL: `http://127.0.0.1:${receiver.address().port}/hook`,
      BENCH_SECRET: secret,
      BENCH_CONCURRENCY: String(o.concurrency),
    });
    const job = (eventId) => ({ eventId, body: JSON.stringify({ eventId, ...JOB_FIELDS }) });
    const until = () => performance.now() + 120_000;
    const ids = Array.from({ length: o.jobs }, (_, i) => `job_${i}`);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: o.producers }, async () => {
        while (next < o.jobs) await add(job(ids[next++]));
      }),
    );
    if (!(await receivedBy(received, ids, until()))) throw new Error(`${label}: not every job was delivered`);
    const perSecond = (o.jobs * 1000) / (performance.now() - started);

    const run = await sendSteadily({
      rate: o.steadyRate,
      seconds: o.steadySeconds,
      maxInFlight: o.maxInFlight,
      send: (i) => add(job(`steady_${i}`)),
    });
    if (run.failure) throw run.failure;
    const steadyIds = Array.from({ length: run.count }, (_, i) => `steady_${i}`);
    if (!(await receivedBy(received, steadyIds, until())))
      throw new Error(`${label}: not every steady job was delivered`);
    const latencies = latenciesOf(received, steadyIds, run.scheduled);
    const result = { label, perSecond, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
    console.log(
      `  ${label}: ${Math.round(perSecond)} jobs / s; at ${o.steadyRate} / s p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms`,
    );
    return result;
  } finally {
    if (worker) await stopChild(worker.child, 10_000);
    receiver.close();
    receiver.closeAllConnections();
  }
}

async function benchBullmq(o) {
  let bullmq;
  let Redis;
  try {
    bullmq = await import('bullmq');
    ({ Redis } = await import('ioredis'));
  } catch (error) {
    return { label: 'BullMQ', skipped: `bullmq or ioredis is not installed (${error.message})` };
  }
  const probe = new Redis(o.redisUrl, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    probe.disconnect();
    return { label: 'BullMQ', skipped: `Redis at ${o.redisUrl} is not reachable (${error.message})` };
  }
  const version = /redis_version:(\S+)/.exec(await probe.info('server'))?.[1];
  probe.disconnect();
  const name = `portico-bench-${randomBytes(4).toString('hex')}`;
  const connection = new Redis(o.redisUrl, { maxRetriesPerRequest: null });
  const queue = new bullmq.Queue(name, { connection });
  try {
    const result = await measureQueue(
      'BullMQ',
      o,
      { BENCH_QUEUE: 'bullmq', BENCH_QUEUE_NAME: name, BENCH_REDIS_URL: o.redisUrl },
      // Retries as the engine's: 3 after the first attempt, waiting 1 s, 2 s, 4 s.
      (job) =>
        queue.add('deliver', job, {
          attempts: 4,
          backoff: { type: 'exponential', delay: 1000 },
          removeOnComplete: true,
          removeOnFail: true,
        }),
    );
    return { ...result, version: versionOf('bullmq'), store: `Redis ${version ?? ''}`.trim() };
  } finally {
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
    await connection.quit();
  }
}

async function benchGraphileWorker(o) {
  let graphile;
  try {
    graphile = await import('graphile-worker');
  } catch (error) {
    return { label: 'graphile-worker', skipped: `graphile-worker is not installed (${error.message})` };
  }
  if (!postgresUrl())
    return { label: 'graphile-worker', skipped: 'PORTICO_BENCH_DATABASE_URL / PORTICO_TEST_DATABASE_URL not set' };
  return withPostgresDatabase('portico_bench_gw', async (url) => {
    // Our own pool, ended before the database is dropped (graphile-worker's release() does not
    // wait for the pool it made to end). The schema first, so the producer and the worker find it.
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    const utils = await graphile.makeWorkerUtils({ pgPool: pool });
    try {
      await utils.migrate();
      const { rows } = await utils.withPgClient((client) => client.query('show server_version'));
      const result = await measureQueue(
        'graphile-worker',
        o,
        { BENCH_QUEUE: 'graphile-worker', BENCH_DATABASE_URL: url },
        (job) => utils.addJob('deliver', job, { maxAttempts: 4 }),
      );
      return {
        ...result,
        version: versionOf('graphile-worker'),
        store: `PostgreSQL ${rows[0]?.server_version?.split(' ')[0] ?? ''}`.trim(),
      };
    } finally {
      await utils.release();
      await pool.end();
    }
  });
}

/** The ceiling and latency floor of a receiver like the ones the queues deliver to, in this run. */
async function benchDirect(o) {
  const received = new Map();
  const secret = `whsec_${randomBytes(16).toString('hex')}`;
  const receiver = createReceiverServer({ secret, work: (e) => received.set(e.eventId, performance.now()) });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  try {
    const body = JSON.stringify({ eventId: 'x', ...JOB_FIELDS });
    const hook = `http://127.0.0.1:${receiver.address().port}/hook`;
    const result = await measureDirect({ ...o, events: o.jobs, hook, secret, body, received, prefix: 'direct' });
    console.log(
      `  ceiling ${Math.round(result.ceiling)} posts / s; direct at ${o.steadyRate} / s p50 ${result.floor.p50.toFixed(1)} ms, p99 ${result.floor.p99.toFixed(1)} ms`,
    );
    return result;
  } finally {
    receiver.close();
    receiver.closeAllConnections();
  }
}

export async function benchQueues(options = {}) {
  const o = { ...QUEUE_SETTINGS, ...options };
  const direct = await benchDirect(o);
  const queues = [await benchBullmq(o), await benchGraphileWorker(o)];
  for (const r of queues) if (r.skipped) console.warn(`  ${r.label} not measured: ${r.skipped}`);
  return { ...direct, queues };
}
