// A/B of the delivery pipeline between two built checkouts, alternating: A, B, A, B…
//
//   node scripts/bench-ab.mjs <checkout A> <checkout B> [rounds] [--throughput-only]
//
// With --throughput-only each run stops after the throughput runs (one event per request, then
// batches): a quicker A/B of deliveries per second and CPU per delivered event.
// Each round runs this checkout's `benchDeliveries` (scripts/bench-deliveries.mjs) against each
// checkout's server (PORTICO_BENCH_TREE), in a process of its own, on SQLite and (with PORTICO_TEST_DATABASE_URL or PORTICO_BENCH_DATABASE_URL) on
// PostgreSQL, without the step search; then prints one line per run and a Markdown table. Build both
// checkouts first (`npm ci && npm run build` in each).
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const throughputOnly = process.argv.includes('--throughput-only');
const [a, b, roundsText = '2'] = process.argv.slice(2).filter((arg) => arg !== '--throughput-only');
if (!a || !b) {
  console.error('usage: node scripts/bench-ab.mjs <checkout A> <checkout B> [rounds]');
  process.exit(2);
}
const trees = [resolve(a), resolve(b)];
const rounds = Number(roundsText);

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
  for (const tree of trees) {
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
      runs.push(JSON.parse(line.slice(3)));
    }
  }
}

const cpu = (c) => (c ? ((c.server + (c.database ?? 0)) / 1000).toFixed(2) : '—');
console.log('\n| Checkout | Back end | One per request | CPU / event | Batches | CPU / event | p50 / p99 at 200 / s |');
console.log('|---|---|---|---|---|---|---|');
for (const r of runs) {
  console.log(
    `| ${r.tree} | ${r.label} | ${Math.round(r.single)} / s | ${cpu(r.singleCpu)} ms | ${r.batch ? `${Math.round(r.batch)} / s` : '—'} | ${cpu(r.batchCpu)} ms | ${r.p50 === undefined ? '—' : `${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} ms`} |`,
  );
}
