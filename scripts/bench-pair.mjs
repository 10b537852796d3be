// An A/B of two built checkouts with both servers up at once, on SQLite (or PostgreSQL): rounds of single events
// (8 senders, each waiting for its answer), or of batches all sent at once, go to one server, then
// the other, the order swapped each round, and each round is compared with its partner.
// bench-ab.mjs runs each checkout in a process of its own, a minute or more apart; on this
// project's shared 2-core VM the machine's speed moved by 20–40 % within minutes (BENCHMARKS.md),
// more than the changes measured. Rounds of a second or two, back to back, see nearly the same
// machine.
//
//   node scripts/bench-pair.mjs <checkout A> <checkout B> [rounds] [events per round] [batch size]
//
// With PORTICO_BENCH_PAIR_STORE=postgres each server runs on a PostgreSQL database of its own, made
// on the server PORTICO_BENCH_DATABASE_URL (or PORTICO_TEST_DATABASE_URL) names and dropped after;
// the CPU per event then counts PostgreSQL's too (its backends of that database and its shared
// processes, which serve both: the same work counted on both sides).
//
// Each server gets the same warm-up as in `npm run bench` (scripts/bench-support.mjs, warmUp) before
// the first round. Prints, per checkout, the median deliveries per second and server CPU per
// delivered event, then B ÷ A: the median (lowest–highest) of the rounds' ratios (CPU as A's ÷ B's,
// so that above 1.00 B is ahead in both). Build both checkouts first (`npm ci && npm run build`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DELIVERY_SETTINGS } from './bench-deliveries.mjs';
import { event, median, medianRange, openPortico, throughputRun } from './bench-peers.mjs';
import { postgresActivity, postgresCpu, postgresUrl, warmUp, withPostgresDatabase } from './bench-support.mjs';

const [a, b, roundsText = '16', eventsText = '600', batchText = '1'] = process.argv.slice(2);
const rounds = Number(roundsText);
const events = Number(eventsText);
const batchSize = Number(batchText);
const valid = (n, least, most = Number.POSITIVE_INFINITY) => Number.isInteger(n) && n >= least && n <= most;
if (!a || !b || !valid(rounds, 2) || !valid(events, 100) || !valid(batchSize, 1, 1000)) {
  if (a && b)
    console.error(
      'bench-pair: rounds must be a whole number of 2 or more, events one of 100 or more, the batch size one from 1 (one event per request) to 1,000',
    );
  console.error(
    'usage: node scripts/bench-pair.mjs <checkout A> <checkout B> [rounds] [events per round] [batch size]',
  );
  process.exit(2);
}
const onPostgres = process.env.PORTICO_BENCH_PAIR_STORE === 'postgres';
if (onPostgres && !postgresUrl()) {
  console.error(
    'bench-pair: PORTICO_BENCH_PAIR_STORE=postgres needs PORTICO_BENCH_DATABASE_URL or PORTICO_TEST_DATABASE_URL',
  );
  process.exit(2);
}
const storeName = onPostgres ? 'PostgreSQL' : 'SQLite';
const load = { ...DELIVERY_SETTINGS, events, batchSize };

/** Runs `fn(env, store)` with the settings of one side's store, removed afterwards. */
async function withStore(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-pair-'));
  try {
    if (!onPostgres) return await fn({ PORTICO_DATA_DIR: dir }, { cpu: undefined, activity: async () => undefined });
    return await withPostgresDatabase('portico_bench_ab', async (url) =>
      fn(
        { PORTICO_DATA_DIR: dir, PORTICO_DATABASE_URL: url },
        { cpu: await postgresCpu(url), activity: postgresActivity(url) },
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const sides = [];
await withStore((envA, storeA) => withStore((envB, storeB) => pair([envA, envB], [storeA, storeB])));

async function pair(envs, stores) {
  try {
    for (const [i, tree] of [resolve(a), resolve(b)].entries()) {
      const side = await openPortico(tree, envs[i], stores[i], tree);
      sides.push(side);
      side.rounds = [];
      await warmUp({
        ...DELIVERY_SETTINGS,
        call: side.call,
        paths: side.paths,
        event,
        untilReceived: side.untilReceived,
      });
    }
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const run = await throughputRun(side, load, `round_${round}`, batchSize > 1, false);
        side.rounds.push({ perSecond: run.perSecond, cpu: run.cpu.server + (run.cpu.database ?? 0) });
      }
    }
  } finally {
    for (const side of sides) await side.close();
  }
}

const shape = batchSize === 1 ? 'one per request' : `in batches of ${batchSize.toLocaleString('en-US')}, sent at once`;
console.log(`\n${rounds} rounds of ${events} events ${shape}, ${storeName}, both servers up at once:\n`);
console.log(
  `| Checkout | Deliveries / s (median) | ${onPostgres ? 'Server and PostgreSQL' : 'Server'} CPU per event (median) |`,
);
console.log('|---|---|---|');
for (const side of sides)
  console.log(
    `| ${side.label} | ${Math.round(median(side.rounds.map((r) => r.perSecond)))} | ${Math.round(median(side.rounds.map((r) => r.cpu)))} µs |`,
  );
const [first, second] = sides;
const rate = first.rounds.map((r, i) => second.rounds[i].perSecond / r.perSecond);
const cpu = first.rounds.map((r, i) => r.cpu / second.rounds[i].cpu);
console.log(`\nB ÷ A (B: ${second.label}, A: ${first.label}), round by round: the median (lowest–highest)\n`);
console.log(`| Deliveries / s | ${medianRange(rate)} |\n| CPU per event | ${medianRange(cpu)} |`);
