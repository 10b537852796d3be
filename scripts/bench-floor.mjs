// How close Portico is to its floor, and where the floor stands against the peers (issue 23).
//
//   node scripts/bench-floor.mjs [ROUNDS]
//
// The floor (scripts/bench-floor-queue.mjs) is what a delivered event costs with the rows Portico
// writes for it, its durability and the fewest statements, on node:http with nothing else. Each
// round measures, on SQLite and then on PostgreSQL (PORTICO_BENCH_DATABASE_URL or
// PORTICO_TEST_DATABASE_URL): Portico (its delivery throughput runs, scripts/bench-deliveries.mjs),
// the floor, and the peer on that store's side (BullMQ, graphile-worker), all under the same load:
// the warm-up, 2,000 events one per request from 8 senders, then in batches of 1,000. Prints every
// run, then each ratio's median (lowest–highest) over the rounds.
import { benchDeliveries, DELIVERY_SETTINGS } from './bench-deliveries.mjs';
import {
  benchBullmq,
  benchFloor,
  benchGraphileWorker,
  cpuTotal as cpu,
  PEER_SETTINGS,
  medianRange as range,
} from './bench-peers.mjs';
import { postgresUrl, withPostgresDatabase } from './bench-support.mjs';

const rounds = Number(process.argv[2] ?? 3);
const o = { ...DELIVERY_SETTINGS, ...PEER_SETTINGS, steadySeconds: 5 };
const us = (n) => `${Math.round(n)} µs`;
const two = (n) => n.toFixed(2);

/** `{ single: { perSecond, cpu }, batch: { perSecond, cpu } }` of each system, per round and store. */
const runs = [];
for (let round = 1; round <= rounds; round++) {
  console.log(`Round ${round} of ${rounds}: Portico…`);
  const portico = await benchDeliveries({ throughputOnly: true });
  const asPeer = (r) => ({
    single: { perSecond: r.endToEnd, cpu: cpu(r.singleCpu) },
    batch: { perSecond: r.batch.endToEnd, cpu: cpu(r.batch.cpu) },
  });
  const stores = [{ store: 'SQLite', portico: asPeer(portico[0]) }];
  if (portico[1]) stores.push({ store: 'PostgreSQL', portico: asPeer(portico[1]) });
  // The floor and the peer take turns going first.
  for (const entry of stores) {
    const floor = () =>
      entry.store === 'SQLite'
        ? benchFloor(o)
        : withPostgresDatabase('portico_bench_floor', (url) => benchFloor(o, url));
    const peer = () => (entry.store === 'SQLite' ? benchBullmq(o) : benchGraphileWorker(o));
    const [first, second] = round % 2 ? [floor, peer] : [peer, floor];
    const a = await first();
    const b = await second();
    const [f, p] = round % 2 ? [a, b] : [b, a];
    if (p.skipped) throw new Error(`${p.label}: ${p.skipped}`);
    const shape = (r) => ({
      single: { perSecond: r.single.perSecond, cpu: cpu(r.single.cpu) },
      batch: { perSecond: r.batch.perSecond, cpu: cpu(r.batch.cpu) },
    });
    runs.push({ round, store: entry.store, peer: p.label, portico: entry.portico, floor: shape(f), other: shape(p) });
  }
}

console.log(
  '\n| Round | Store | Events in | Portico | Its floor | Peer | Portico ÷ floor (rate, CPU) | Floor ÷ peer (rate, CPU) |',
);
console.log('|---|---|---|---|---|---|---|---|');
const ratios = new Map();
for (const r of runs) {
  for (const kind of ['single', 'batch']) {
    const [x, f, p] = [r.portico[kind], r.floor[kind], r.other[kind]];
    const show = (s) => `${Math.round(s.perSecond)} / s, ${us(s.cpu)}`;
    const pf = { rate: x.perSecond / f.perSecond, cpu: f.cpu / x.cpu };
    const fp = { rate: f.perSecond / p.perSecond, cpu: p.cpu / f.cpu };
    console.log(
      `| ${r.round} | ${r.store} | ${kind === 'single' ? 'one per request' : 'batches'} | ${show(x)} | ${show(f)} | ${r.peer}: ${show(p)} | ${two(pf.rate)}, ${two(pf.cpu)} | ${two(fp.rate)}, ${two(fp.cpu)} |`,
    );
    const key = `${r.store} | ${kind === 'single' ? 'one per request' : 'batches'} | ${r.peer}`;
    ratios.set(key, [...(ratios.get(key) ?? []), { pf, fp }]);
  }
}
console.log(`\nOver ${rounds} rounds, the median (lowest–highest); CPU ratios are the other's CPU ÷ the first's:\n`);
console.log('| Store | Events in | Peer | Portico ÷ floor, rate | CPU | Floor ÷ peer, rate | CPU |');
console.log('|---|---|---|---|---|---|---|');
for (const [key, rs] of ratios)
  console.log(
    `| ${key} | ${range(rs.map((r) => r.pf.rate))} | ${range(rs.map((r) => r.pf.cpu))} | ${range(rs.map((r) => r.fp.rate))} | ${range(rs.map((r) => r.fp.cpu))} |`,
  );
if (!postgresUrl())
  console.log('\n(PostgreSQL left out: set PORTICO_BENCH_DATABASE_URL or PORTICO_TEST_DATABASE_URL.)');
