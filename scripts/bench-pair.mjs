// An A/B of two built checkouts with both servers up at once, on SQLite: rounds of single events
// (8 senders, each waiting for its answer), or of batches all sent at once, go to one server, then
// the other, the order swapped each round, and each round is compared with its partner.
// bench-ab.mjs runs each checkout in a process of its own, a minute or more apart; on this
// project's shared 2-core VM the machine's speed moved by 20–40 % within minutes (BENCHMARKS.md),
// more than the changes measured. Rounds of a second or two, back to back, see nearly the same
// machine.
//
//   node scripts/bench-pair.mjs <checkout A> <checkout B> [rounds] [events per round] [batch size]
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
import { warmUp } from './bench-support.mjs';

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
const load = { ...DELIVERY_SETTINGS, events, batchSize };
const inProcess = { cpu: undefined, activity: async () => undefined };

const sides = [];
const dirs = [];
try {
  for (const tree of [resolve(a), resolve(b)]) {
    const dir = mkdtempSync(join(tmpdir(), 'portico-bench-pair-'));
    dirs.push(dir);
    const side = await openPortico(tree, { PORTICO_DATA_DIR: dir }, inProcess, tree);
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
      side.rounds.push({ perSecond: run.perSecond, cpu: run.cpu.server });
    }
  }
} finally {
  for (const side of sides) await side.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

const shape = batchSize === 1 ? 'one per request' : `in batches of ${batchSize.toLocaleString('en-US')}, sent at once`;
console.log(`\n${rounds} rounds of ${events} events ${shape}, SQLite, both servers up at once:\n`);
console.log('| Checkout | Deliveries / s (median) | Server CPU per event (median) |');
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
