// A/B of the delivery pipeline between two built checkouts, alternating: A, B, then B, A, and so on.
// Each checkout goes first in half the rounds: whichever ran second in a round tended to be the
// faster (BENCHMARKS.md, issue 23), so a fixed order favoured one side.
//
//   node scripts/bench-ab.mjs <checkout A> <checkout B> [rounds] [--throughput-only]
//
// With --throughput-only each run stops after the throughput runs (one event per request, then
// batches): a quicker A/B of deliveries per second and CPU per delivered event.
// Each round runs this checkout's `benchDeliveries` (scripts/bench-deliveries.mjs) against each
// checkout's server (PORTICO_BENCH_TREE), in a process of its own, on SQLite and (with PORTICO_TEST_DATABASE_URL or PORTICO_BENCH_DATABASE_URL) on
// PostgreSQL, without the step search; then prints one line per run, a Markdown table, and B ÷ A
// per round with their median (lowest–highest). Build both checkouts first (`npm ci && npm run
// build` in each).
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { cpuTotal, medianRange } from './bench-peers.mjs';

const throughputOnly = process.argv.includes('--throughput-only');
const [a, b, roundsText = '2'] = process.argv.slice(2).filter((arg) => arg !== '--throughput-only');
const rounds = Number(roundsText);
if (!a || !b || !Number.isInteger(rounds) || rounds < 1) {
  if (a && b) console.error(`bench-ab: rounds must be a whole number of 1 or more, not "${roundsText}"`);
  console.error('usage: node scripts/bench-ab.mjs <checkout A> <checkout B> [rounds] [--throughput-only]');
  process.exit(2);
}
const trees = [resolve(a), resolve(b)];

// One run: this script again, as a child, with the checkout to measure.
if (process.env.PORTICO_AB_TREE) {
  const tree = process.env.PORTICO_AB_TREE;
  process.env.PORTICO_BENCH_TREE = tree;
  const { benchDeliveries } = await import('./bench-deliveries.mjs');
  const results = await benchDeliveries({ steps: [], steadySeconds: 5, noisySeconds: 5, throughputOnly });
  for (const r of results) {
    const line = {
      tree,
      label: r.label,
      single: r.endToEnd,
      singleCpu: r.singleCpu,
      batch: r.batch?.endToEnd,
      batchCpu: r.batch?.cpu,
      p50: r.p50,
      p99: r.p99,
      noisy: r.noisy && { p50: r.noisy.p50, p99: r.noisy.p99 },
    };
    console.log(`AB ${JSON.stringify(line)}`);
  }
  process.exit(0);
}

const runs = [];
for (let round = 0; round < rounds; round++) {
  for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
    const child = spawnSync(
      process.execPath,
      [new URL(import.meta.url).pathname, a, b, ...(throughputOnly ? ['--throughput-only'] : [])],
      {
        env: { ...process.env, PORTICO_AB_TREE: tree },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    if (child.status !== 0) throw new Error(`the run of ${tree} failed (exit ${child.status})`);
    for (const line of child.stdout.split('\n')) {
      if (!line.startsWith('AB ')) continue;
      console.log(line);
      runs.push({ ...JSON.parse(line.slice(3)), round });
    }
  }
}

const cpu = (c) => (c ? (cpuTotal(c) / 1000).toFixed(2) : '—');
console.log('\n| Checkout | Back end | One per request | CPU / event | Batches | CPU / event | p50 / p99 at 200 / s |');
console.log('|---|---|---|---|---|---|---|');
for (const r of runs) {
  console.log(
    `| ${r.tree} | ${r.label} | ${Math.round(r.single)} / s | ${cpu(r.singleCpu)} ms | ${r.batch ? `${Math.round(r.batch)} / s` : '—'} | ${cpu(r.batchCpu)} ms | ${r.p50 === undefined ? '—' : `${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} ms`} |`,
  );
}

// B ÷ A, round by round: deliveries per second, and CPU per delivered event (A's ÷ B's, so that above
// 1.00 B is ahead in both).
const ratios = new Map();
for (const r of runs.filter((run) => run.tree === trees[1])) {
  const other = runs.find((run) => run.tree === trees[0] && run.round === r.round && run.label === r.label);
  if (!other) continue;
  const add = (key, value) => {
    if (Number.isFinite(value)) ratios.set(key, [...(ratios.get(key) ?? []), value]);
  };
  add(`${r.label} | one per request | deliveries / s`, r.single / other.single);
  add(`${r.label} | one per request | CPU per event`, cpuTotal(other.singleCpu) / cpuTotal(r.singleCpu));
  if (r.batch && other.batch) {
    add(`${r.label} | batches | deliveries / s`, r.batch / other.batch);
    add(`${r.label} | batches | CPU per event`, cpuTotal(other.batchCpu) / cpuTotal(r.batchCpu));
  }
}
console.log(`\nB ÷ A (B: ${trees[1]}, A: ${trees[0]}), over ${rounds} rounds: the median (lowest–highest)\n`);
console.log('| Back end | Events in | Measure | B ÷ A |');
console.log('|---|---|---|---|');
for (const [key, values] of ratios) console.log(`| ${key} | ${medianRange(values)} |`);
