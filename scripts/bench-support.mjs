// What the benchmarks that run `portico serve` share: starting and stopping the server (and every
// workerd process it started), the API, memory from /proc, percentiles, and the two back ends.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postWebhook } from '@portico/platform';
import { sign } from '@portico/webhooks';
import { createReceiverServer } from '@portico-examples/webhook-receiver';
import pg from 'pg';

// The server measured: this checkout's, or another built checkout's (PORTICO_BENCH_TREE, bench-ab.mjs).
const binOf = (tree) =>
  tree ? `${tree}/packages/cli/dist/bin.js` : new URL('../packages/cli/dist/bin.js', import.meta.url).pathname;

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * Calls `send(i)` `rate` times a second for `seconds`, on a fixed schedule that does not wait for
 * answers (at most `maxInFlight` in flight; a later send waits for a slot). Answers each send's
 * scheduled time, from which its latency is measured, so a late send counts its lateness, and
 * whether each send succeeded.
 */
export async function sendSteadily({ rate, seconds, maxInFlight, send }) {
  const count = Math.round(rate * seconds);
  const start = performance.now() + 20;
  const scheduled = [];
  const settled = [];
  const slots = [];
  let inFlight = 0;
  let failure;
  for (let i = 0; i < count; i++) {
    const at = start + (i * 1000) / rate;
    const wait = at - performance.now();
    if (wait >= 1) await sleep(wait);
    while (inFlight >= maxInFlight) await new Promise((resolve) => slots.push(resolve));
    inFlight++;
    // A send less than 1 ms early (not worth a timer) counts from when it was sent.
    scheduled.push(Math.min(at, performance.now()));
    settled.push(
      send(i)
        .then(
          () => true,
          (error) => {
            failure ??= error;
            return false;
          },
        )
        .finally(() => {
          inFlight--;
          slots.shift()?.();
        }),
    );
  }
  const ok = await Promise.all(settled);
  return {
    count,
    scheduled,
    ok,
    accepted: ok.filter(Boolean).length,
    failure,
    lastSend: start + ((count - 1) * 1000) / rate,
  };
}

/** Waits until every id has been received or `until` (a performance.now() time) has passed. */
export async function receivedBy(received, ids, until) {
  let missing = ids.filter((id) => !received.has(id));
  while (missing.length > 0 && performance.now() < until) {
    await sleep(10);
    missing = missing.filter((id) => !received.has(id));
  }
  return missing.length === 0;
}

/**
 * What every delivery benchmark sets up through a server's API (`call`): the organization `acme`
 * with the space `docs`, the webhook integration installed there, and the verifying reference
 * receiver on 127.0.0.1 as its URL for `space_content_updated`, which notes each event's arrival
 * time in `received` (eventId → performance.now()). Answers `{ receiver, hook, secret, space }`;
 * the caller closes the receiver.
 */
export async function webhookToReceiver(call, received) {
  await call('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
  await call('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' });
  const org = (await call('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).id;
  const space = (await call('POST', `/v1/installations/${org}/spaces/docs`)).id;
  const secret = (await call('GET', `/v1/installations/${space}/signing-secret`)).secret;
  const receiver = createReceiverServer({ secret, work: (e) => received.set(e.eventId, performance.now()) });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${receiver.address().port}/hook`;
  await call('PATCH', `/v1/installations/${space}/configuration`, { url: hook, space_content_updated: true });
  return { receiver, hook, secret, space };
}

/**
 * The warm-up before anything is measured, the same for Portico and its peers: `warmup` events in
 * requests of `batchSize`, then as many one per request from `senders` senders, each run until the
 * last is received. Both ingest paths run thousands of times first, so their code is compiled and
 * their caches are filled, as in a server that has run a while: after 200 events in one batch only,
 * Portico's first 2,000 events one per request cost it 1.3 ms of CPU each, against 0.7 ms once
 * 4,000 had gone (2026-11-27; BENCHMARKS.md, "Steady state, a durable BullMQ, ...").
 */
export async function warmUp({ call, paths, event, warmup, batchSize, senders, untilReceived }) {
  const batchIds = Array.from({ length: warmup }, (_, i) => `warm_batch_${i}`);
  for (let i = 0; i < batchIds.length; i += batchSize)
    await sendBatches({ call, path: paths.batch, event, ids: batchIds.slice(i, i + batchSize), batchSize });
  await untilReceived(batchIds, 'the warm-up in batches');
  const singleIds = Array.from({ length: warmup }, (_, i) => `warm_single_${i}`);
  await sendSingles({ ids: singleIds, senders, send: (id) => call('POST', paths.single, event(id)) });
  await untilReceived(singleIds, 'the warm-up one per request');
}

/**
 * Calls `send(id)` for each of `ids` in turn from `senders` senders, each waiting for its answer
 * before its next: one event per request (`send` throws on an answer that is not 2xx).
 */
export async function sendSingles({ ids, senders, send }) {
  let next = 0;
  await Promise.all(
    Array.from({ length: senders }, async () => {
      while (next < ids.length) await send(ids[next++]);
    }),
  );
}

/**
 * Sends the events `ids` to `path` in requests of `batchSize` (`{ events: [...] }`), all at once.
 * Throws, naming the first refusal, unless every event of every batch was accepted as new (the ids
 * are fresh: a duplicate means the run would wait for a delivery that never comes).
 */
export async function sendBatches({ call, path, event, ids, batchSize }) {
  const batches = [];
  for (let i = 0; i < ids.length; i += batchSize) batches.push(ids.slice(i, i + batchSize));
  await Promise.all(
    batches.map(async (batch) => {
      const { results } = await call('POST', path, { events: batch.map((id) => event(id)) });
      const refused = results.find((r) => r.error !== undefined || r.duplicate === true);
      if (results.length !== batch.length || refused)
        throw new Error(`${path}: the batch was not accepted whole: ${JSON.stringify(refused ?? results.length)}`);
    }),
  );
}

/** Latencies (scheduled send → receipt) of a steady run, sorted; one never received counts as Infinity. */
export function latenciesOf(received, ids, scheduled) {
  return ids.map((id, i) => (received.get(id) ?? Number.POSITIVE_INFINITY) - scheduled[i]).sort((a, b) => a - b);
}

/**
 * One signed POST by the delivery engine's own HTTP client, as an attempt makes it; throws unless
 * 200. A network failure is tried once more, as the engine retries it (a kept-alive connection the
 * receiver closed meanwhile answers ECONNRESET).
 */
export async function postDirect(hook, secret, payload) {
  const headers = { 'content-type': 'application/json', 'x-platform-signature': await sign(secret, payload) };
  const post = () => postWebhook(hook, headers, payload, { timeoutMs: 10_000, allowPrivateNetwork: true });
  let result = await post();
  if (result.kind === 'network') result = await post();
  if (result.kind !== 'answered' || result.status !== 200) throw new Error(`direct post: ${JSON.stringify(result)}`);
}

/**
 * The ceiling and the latency floor of a receiver: the engine's HTTP client posting signed bodies
 * (`body` with its eventId "x" replaced) straight to `hook`: `events` of them, `ceilingConcurrency`
 * at a time (posts / s; the best of three rounds after a warm-up round, as the other figures: a
 * single burst of a few hundred milliseconds moved by 2x within one run), then `steadyRate` a
 * second for `steadySeconds` (scheduled send → receipt).
 */
export async function measureDirect({ hook, secret, body, received, prefix, ...o }) {
  const payload = (id) => body.replace('"eventId":"x"', `"eventId":"${id}"`);
  let ceiling = 0;
  for (let round = 0; round < 4; round++) {
    const started = performance.now();
    let sent = 0;
    const direct = async () => {
      while (sent < o.events) await postDirect(hook, secret, payload(`${prefix}_${round}_${sent++}`));
    };
    await Promise.all(Array.from({ length: o.ceilingConcurrency }, direct));
    if (round > 0) ceiling = Math.max(ceiling, (o.events * 1000) / (performance.now() - started));
  }
  const run = await sendSteadily({
    rate: o.steadyRate,
    seconds: o.steadySeconds,
    maxInFlight: o.maxInFlight,
    send: (i) => postDirect(hook, secret, payload(`${prefix}_floor_${i}`)),
  });
  if (run.failure) throw run.failure;
  const ids = Array.from({ length: run.count }, (_, i) => `${prefix}_floor_${i}`);
  if (!(await receivedBy(received, ids, performance.now() + 60_000)))
    throw new Error('not every direct post was received');
  const latencies = latenciesOf(received, ids, run.scheduled);
  return { ceiling, floor: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) } };
}

/** Resident memory of one process (RSS, from /proc/PID/status), in MiB; 0 once it has ended. */
export function rssMiB(pid) {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Clock ticks a second, the unit of /proc/PID/stat's CPU times (100 on Linux, asked once). */
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** Fields of /proc/PID/stat after the command name (state first), or undefined once it has ended. */
function statOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** CPU time of one process (all its threads), in ms; 0 once it has ended. */
export function cpuMs(pid) {
  const f = statOf(pid);
  return f ? ((Number(f[11]) + Number(f[12])) * 1000) / TICKS : 0;
}

/**
 * The CPU time a PostgreSQL server running on this machine spends on the database of `url`, in
 * ms: its postmaster's own, its shared processes' (WAL writer, checkpointer, background writer,
 * launchers, autovacuum workers) and the backends connected to that database; the backends of other
 * databases (another client of a server the machine shares) are left out, and so is the time of the
 * processes that ended before the first reading. A process that ends later counts what it had at
 * the last reading. Found from a backend of `url`; undefined when the server is elsewhere (its
 * processes are not in /proc).
 */
export async function postgresCpu(url) {
  const database = new URL(url).pathname.slice(1);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let postmaster;
  try {
    const backend = (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
    // (A process of that number here that is not PostgreSQL's is not the server's.)
    const parent = isCommand(backend, 'postgres') ? statOf(backend)?.[1] : undefined;
    if (parent !== undefined) postmaster = Number(parent);
  } finally {
    await client.end();
  }
  if (postmaster === undefined) return undefined;
  /** The CPU time of each process counted so far, by pid and start time (a pid may be reused). */
  const seen = new Map();
  return () => {
    const own = statOf(postmaster);
    if (own === undefined) return Number.NaN;
    for (const pid of childrenOf(postmaster, 'postgres')) {
      // A client backend's title: "postgres: [cluster: ]user database host(port) activity".
      let title = '';
      try {
        title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      } catch {}
      const client = /^postgres: (?:\S+: )?\S+ (\S+) (?:\S+\(\d+\)|\[local\])/.exec(title);
      if (client && client[1] !== database) continue;
      const f = statOf(pid);
      if (f) seen.set(`${pid}@${f[19]}`, ((Number(f[11]) + Number(f[12])) * 1000) / TICKS);
    }
    let sum = ((Number(own[11]) + Number(own[12])) * 1000) / TICKS;
    for (const ms of seen.values()) sum += ms;
    return sum;
  };
}

/**
 * The CPU time of a process tree, in ms: the process's own, that of its ended children it has
 * reaped, and its live descendants' (each the same way); 0 once it has ended.
 */
export function treeCpuMs(pid) {
  const parents = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statOf(entry);
    if (f && f[0] !== 'Z') parents.set(Number(entry), Number(f[1]));
  }
  const walk = (p) => {
    const f = statOf(p);
    if (f === undefined) return 0;
    let sum = ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / TICKS;
    for (const [child, parent] of parents) if (parent === p) sum += walk(child);
    return sum;
  };
  return walk(pid);
}

/**
 * Measures the CPU time per event of a run: the server's process tree's, its store's (PostgreSQL's
 * or Redis's, when `database` reads it) and this process's (the benchmark's senders and receiver).
 * Call it before the run; call what it answers with the number of events after the run: µs per event.
 */
export function cpuPerEvent(serverPid, database) {
  const read = () => {
    const own = process.cpuUsage();
    return { server: treeCpuMs(serverPid), database: database?.(), bench: (own.user + own.system) / 1000 };
  };
  const before = read();
  return (events) => {
    const after = read();
    const per = (a, b) => (a === undefined || b === undefined ? undefined : ((a - b) * 1000) / events);
    return {
      server: per(after.server, before.server),
      database: per(after.database, before.database),
      bench: per(after.bench, before.bench),
    };
  };
}

/** Proportional memory of one process (PSS: shared pages split among the processes sharing them), in MiB. */
export function pssMiB(pid) {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** The live children of `pid` named `comm` (as /proc/PID/stat shows it, e.g. `workerd`). */
export function childrenOf(pid, comm) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const close = stat.lastIndexOf(')');
    const [state, ppid] = stat.slice(close + 2).split(' ');
    if (Number(ppid) === pid && stat.slice(stat.indexOf('(') + 1, close) === comm && state !== 'Z') {
      found.push(Number(entry));
    }
  }
  return found;
}

function isCommand(pid, comm) {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === comm;
  } catch {
    return false;
  }
}

const isWorkerd = (pid) => isCommand(pid, 'workerd');

const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));

/**
 * `command` made to end with the benchmark, also when the benchmark is killed: setpriv (util-linux)
 * asks the kernel to send it SIGTERM when its parent dies, then becomes it (the same pid).
 */
export function endingWithUs(command) {
  return setpriv ? [setpriv, '--pdeathsig', 'TERM', ...command] : command;
}

/**
 * Starts `portico serve --port 0` with `env` (and PATH) only; answers once it listens. The server is
 * this checkout's, or the built checkout `tree`'s (by default PORTICO_BENCH_TREE's: bench-ab.mjs).
 * Node flags for the server (`--cpu-prof --cpu-prof-dir=DIR`, which NODE_OPTIONS refuses) come from
 * PORTICO_BENCH_NODE_FLAGS.
 */
export function startServer(env, tree = process.env.PORTICO_BENCH_TREE) {
  const flags = (process.env.PORTICO_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const command = endingWithUs([process.execPath, ...flags, binOf(tree), 'serve', '--port', '0']);
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], command.slice(1), {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`portico serve did not start within 30 s: ${err}`));
    }, 30_000);
    child.stderr.on('data', (chunk) => {
      err += chunk;
      const url = /running at (http:\/\/\S+)/.exec(err)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, call: apiCaller(url, env.PORTICO_ADMIN_TOKEN) });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`portico serve exited ${code}: ${err}`));
    });
  });
}

/**
 * `call(method, path, body?, token?)`: one API request; throws with the error answer unless 2xx.
 * Sent with `node:http` over kept-alive connections, not `fetch`: the benchmark shares the machine's
 * two cores with the server it measures, and `fetch` cost this process about 4 times the CPU per
 * request (undici's streams and its parser; BENCHMARKS.md, "The benchmark's own sender").
 */
export function apiCaller(url, adminToken) {
  // An idle connection is dropped a second before the server would close it (its `Keep-Alive:
  // timeout` hint, honoured when the agent has a timeout), so a request never meets a closing one.
  const agent = new http.Agent({ keepAlive: true, timeout: 30_000 });
  return (method, path, body, token = adminToken) =>
    new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const headers = { authorization: `Bearer ${token}` };
      if (text !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(text);
      }
      const request = http.request(`${url}${path}`, { method, headers, agent }, (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          let answer;
          try {
            answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            reject(new Error(`${method} ${path}: ${response.statusCode}, not JSON`));
            return;
          }
          const status = response.statusCode ?? 0;
          if (status < 200 || status > 299) reject(new Error(`${method} ${path}: ${status} ${JSON.stringify(answer)}`));
          else resolve(answer);
        });
      });
      request.on('error', reject);
      request.end(text);
    });
}

/**
 * Stops the server (SIGTERM; SIGKILL after 30 s) and makes sure every workerd process it started
 * has ended too (they end with it; one that does not is killed by its pid).
 */
export async function stopServer(child) {
  const workers = new Set(childrenOf(child.pid, 'workerd'));
  const poll = setInterval(() => {
    for (const pid of childrenOf(child.pid, 'workerd')) workers.add(pid);
  }, 100);
  await stopChild(child, 30_000);
  clearInterval(poll);
  const until = performance.now() + 5000;
  let left = [...workers].filter(isWorkerd);
  while (left.length > 0 && performance.now() < until) {
    await sleep(50);
    left = left.filter(isWorkerd);
  }
  for (const pid of left) {
    console.warn(`workerd ${pid} outlived its server: killing it`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
}

/** Stops a child process: SIGTERM, then SIGKILL after `killAfterMs`; resolves once it has exited. */
export function stopChild(child, killAfterMs) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Fresh secrets for a server run; deliveries may reach this machine's receivers. */
export function serverSecrets() {
  return {
    PORTICO_ADMIN_TOKEN: `pta_${randomBytes(16).toString('hex')}`,
    PORTICO_SECRET_KEY: randomBytes(32).toString('base64'),
    PORTICO_ALLOW_PRIVATE_NETWORK: '1',
    PORTICO_LOG_LEVEL: 'warn',
  };
}

export const postgresUrl = () => process.env.PORTICO_BENCH_DATABASE_URL ?? process.env.PORTICO_TEST_DATABASE_URL;

/**
 * A fresh PostgreSQL database for `fn(url)`, dropped afterwards; the server given by
 * PORTICO_BENCH_DATABASE_URL (or PORTICO_TEST_DATABASE_URL).
 */
export async function withPostgresDatabase(prefix, fn) {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl() });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
    const url = new URL(postgresUrl());
    url.pathname = `/${name}`;
    return await fn(url.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end();
  }
}

/**
 * Runs `fn(label, env)` on SQLite, then on PostgreSQL when a database URL is set, each with its
 * own data directory (and database) removed afterwards; answers their results in that order.
 */
export async function onEachBackend(fn, extraEnv = {}) {
  const results = [];
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
  try {
    results.push(await fn('SQLite', { ...serverSecrets(), ...extraEnv, PORTICO_DATA_DIR: dir }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (postgresUrl()) {
    const pgDir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
    try {
      results.push(
        await withPostgresDatabase('portico_bench', (url) =>
          fn('PostgreSQL', { ...serverSecrets(), ...extraEnv, PORTICO_DATA_DIR: pgDir, PORTICO_DATABASE_URL: url }),
        ),
      );
    } finally {
      rmSync(pgDir, { recursive: true, force: true });
    }
  }
  return results;
}

/**
 * What a PostgreSQL database has done, from `pg_stat_database` (read over the server's own
 * database at PORTICO_BENCH_DATABASE_URL, so the reading is not counted): answers `read()`, which
 * waits `settleMs` first (a backend reports its counts at most once a second, while it works) and
 * answers `{ transactions, rowsWritten, rowsRead }` so far.
 */
export function postgresActivity(url, settleMs = 2500) {
  const name = new URL(url).pathname.slice(1);
  return async () => {
    await sleep(settleMs);
    const client = new pg.Client({ connectionString: postgresUrl() ?? url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `select xact_commit + xact_rollback as transactions,
                tup_inserted + tup_updated + tup_deleted as "rowsWritten",
                tup_returned + tup_fetched as "rowsRead"
           from pg_stat_database where datname = $1`,
        [name],
      );
      const row = rows[0];
      return row && Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
    } finally {
      await client.end();
    }
  };
}

/** Counts per event between two readings of the same kind (`{ name: number }`), or undefined. */
export function perEvent(before, after, events) {
  if (before === undefined || after === undefined) return undefined;
  return Object.fromEntries(Object.keys(after).map((k) => [k, (after[k] - before[k]) / events]));
}

/**
 * The pipeline's counters from the server's `GET /metrics` (Prometheus text), summed over their
 * labels: what an operator scraping during the benchmark sees move.
 */
export async function scrapeCounters(url) {
  const response = await fetch(`${url}/metrics`);
  if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
  const text = await response.text();
  const sum = (name, labels = '') => {
    let total = 0;
    for (const line of text.split('\n')) {
      if (!line.startsWith(name) || line.startsWith('#')) continue;
      const [series, value] = line.split(' ');
      if ((series === name || series.startsWith(`${name}{`)) && series.includes(labels)) total += Number(value);
    }
    return total;
  };
  return {
    ingested: sum('portico_events_ingested_total'),
    dispatches: sum('portico_dispatches_total'),
    attempts: sum('portico_delivery_attempts_total'),
    delivered: sum('portico_deliveries_total', 'outcome="delivered"'),
    receipts: sum('portico_ingest_to_receipt_seconds_count'),
  };
}

/** How much each counter moved between two scrapes. */
export function countersMoved(before, after) {
  return Object.fromEntries(Object.keys(after).map((key) => [key, after[key] - before[key]]));
}
