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
import { medianRange } from './bench-peers.mjs';
import {
  cpuPerEvent,
  percentile,
  receivedBy,
  sendBatches,
  sendSingles,
  serverSecrets,
  startServer,
  stopServer,
  warmUp,
  webhookToReceiver,
} from './bench-support.mjs';

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
const DRAIN_LIMIT_MS = 120_000;
const event = (eventId) => ({ type: 'space_content_updated', eventId, spaceId: 'docs', revisionId: 'r' });
const median = (values) =>
  percentile(
    [...values].sort((x, y) => x - y),
    50,
  );

const sides = [];
try {
  for (const tree of [resolve(a), resolve(b)]) {
    const dir = mkdtempSync(join(tmpdir(), 'portico-bench-pair-'));
    const side = { tree, dir, rounds: [] };
    sides.push(side);
    side.server = await startServer({ ...serverSecrets(), PORTICO_DATA_DIR: dir }, tree);
    side.received = new Map();
    side.receiver = (await webhookToReceiver(side.server.call, side.received)).receiver;
    side.untilReceived = async (ids, what) => {
      if (!(await receivedBy(side.received, ids, performance.now() + DRAIN_LIMIT_MS)))
        throw new Error(`${tree}: ${what}: not every delivery arrived within ${DRAIN_LIMIT_MS / 1000} s`);
    };
    await warmUp({
      ...DELIVERY_SETTINGS,
      call: side.server.call,
      paths: { single: '/v1/events', batch: '/v1/events/batch' },
      event,
      untilReceived: side.untilReceived,
    });
  }
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const ids = Array.from({ length: events }, (_, i) => `round_${round}_${i}`);
      const cpu = cpuPerEvent(side.server.child.pid);
      const started = performance.now();
      const { call } = side.server;
      const send = (id) => call('POST', '/v1/events', event(id));
      if (batchSize === 1) await sendSingles({ ids, senders: DELIVERY_SETTINGS.senders, send });
      else await sendBatches({ call, path: '/v1/events/batch', event, ids, batchSize });
      await side.untilReceived(ids, `round ${round + 1}`);
      side.rounds.push({ perSecond: (events * 1000) / (performance.now() - started), cpu: cpu(events).server });
    }
  }
} finally {
  for (const side of sides) {
    side.receiver?.close();
    side.receiver?.closeAllConnections();
    if (side.server) await stopServer(side.server.child);
    rmSync(side.dir, { recursive: true, force: true });
  }
}

const shape = batchSize === 1 ? 'one per request' : `in batches of ${batchSize.toLocaleString('en-US')}, sent at once`;
console.log(`\n${rounds} rounds of ${events} events ${shape}, SQLite, both servers up at once:\n`);
console.log('| Checkout | Deliveries / s (median) | Server CPU per event (median) |');
console.log('|---|---|---|');
for (const side of sides)
  console.log(
    `| ${side.tree} | ${Math.round(median(side.rounds.map((r) => r.perSecond)))} | ${Math.round(median(side.rounds.map((r) => r.cpu)))} µs |`,
  );
const [first, second] = sides;
const rate = first.rounds.map((r, i) => second.rounds[i].perSecond / r.perSecond);
const cpu = first.rounds.map((r, i) => r.cpu / second.rounds[i].cpu);
console.log(`\nB ÷ A (B: ${second.tree}, A: ${first.tree}), round by round: the median (lowest–highest)\n`);
console.log(`| Deliveries / s | ${medianRange(rate)} |\n| CPU per event | ${medianRange(cpu)} |`);
