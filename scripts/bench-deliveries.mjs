// Delivery benchmarks: events in through the API (one per request, and in batches), signed
// deliveries acknowledged by the verifying reference receiver, next to the ceiling: the same HTTP
// client posting the same bodies straight to the same receiver. Then latency from ingest to
// receipt at a steady rate, the highest steady rate without a growing backlog, the same latency
// while another installation's endpoint hangs, the delivery engine alone, and the server's memory.
import { createServer as createTcpServer } from 'node:net';
import {
  countersMoved,
  cpuPerEvent,
  latenciesOf,
  measureDirect,
  onEachBackend,
  percentile,
  perEvent,
  postgresActivity,
  postgresCpu,
  receivedBy,
  rssMiB,
  scrapeCounters,
  sendBatches,
  sendSingles,
  sendSteadily,
  sleep,
  startServer,
  stopServer,
  warmUp,
  webhookToReceiver,
} from './bench-support.mjs';

export const DELIVERY_SETTINGS = {
  /** Events per end-to-end throughput run (one per request, then in batches). */
  events: 2000,
  /** Events sent in batches, then as many one per request, and delivered before anything is measured (warmUp). */
  warmup: 3000,
  /** Concurrent senders of single events (each waits for its answer before the next). */
  senders: 8,
  /** Events per `POST /v1/events/batch` request (the route takes up to 1,000). */
  batchSize: 1000,
  /** Attempts in flight when the engine's client posts straight to the receiver (the ceiling). */
  ceilingConcurrency: 64,
  /** The steady rate of the latency run (events / s) and how long it lasts. */
  steadyRate: 200,
  steadySeconds: 10,
  /** The rates tried one after another to find the highest one sustained, and how long each lasts. */
  steps: [100, 200, 400, 800, 1600],
  stepSeconds: 5,
  /** A step is sustained when everything sent in it is received within this after its last send… */
  stepGraceMs: 2000,
  /** …and its p99 ingest→receipt stays under this. */
  stepP99LimitMs: 500,
  /** Below the first step, rates are halved down to this until one is sustained. */
  lowestStep: 25,
  /**
   * Deliveries owed to the endpoint that never answers, and the healthy load meanwhile (a rate
   * both back ends sustain, so the figure shows the neighbour, not a backlog), measured without
   * the neighbour just before.
   */
  noisyOwed: 150,
  noisyRate: 50,
  noisySeconds: 10,
  /** Sends in flight at most during a steady run; later sends wait, and their wait counts in their latency. */
  maxInFlight: 256,
};

/** How long a backlog may take to drain after a run before the benchmark gives up waiting. */
const DRAIN_LIMIT_MS = 120_000;

async function benchBackend(label, env, o) {
  const { child, call, url } = await startServer(env);
  const databaseCpu = env.PORTICO_DATABASE_URL ? await postgresCpu(env.PORTICO_DATABASE_URL) : undefined;
  // PostgreSQL's transactions and rows per event (for the Peers section); none on SQLite.
  const activity = env.PORTICO_DATABASE_URL ? postgresActivity(env.PORTICO_DATABASE_URL) : async () => undefined;
  const received = new Map();
  let receiver;
  let hang;
  const hungSockets = new Set();
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMiB(child.pid));
  }, 200);
  const event = (eventId, spaceId = 'docs') => ({ type: 'space_content_updated', eventId, spaceId, revisionId: 'r' });
  const untilReceived = async (ids, what) => {
    if (!(await receivedBy(received, ids, performance.now() + DRAIN_LIMIT_MS)))
      throw new Error(`${label}: ${what}: not every delivery arrived within ${DRAIN_LIMIT_MS / 1000} s`);
  };
  /** A steady run of single events to the healthy space: its latencies and whether it kept up. */
  const steadyRun = async (prefix, rate, seconds) => {
    const run = await sendSteadily({
      rate,
      seconds,
      maxInFlight: o.maxInFlight,
      send: (i) => call('POST', '/v1/events', event(`${prefix}_${i}`)),
    });
    const ids = Array.from({ length: run.count }, (_, i) => `${prefix}_${i}`);
    // Only what was accepted can arrive; a refused event counts as never received.
    const owed = ids.filter((_, i) => run.ok[i]);
    const inTime = await receivedBy(received, owed, run.lastSend + o.stepGraceMs);
    const receivedInTime = ids.filter(
      (id) => (received.get(id) ?? Number.POSITIVE_INFINITY) <= run.lastSend + o.stepGraceMs,
    ).length;
    const drained = inTime || (await receivedBy(received, owed, performance.now() + DRAIN_LIMIT_MS));
    const latencies = latenciesOf(received, ids, run.scheduled);
    return {
      rate,
      sent: run.count,
      accepted: run.accepted,
      receivedInTime,
      drained,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      failure: run.failure?.message,
    };
  };
  try {
    const world = await webhookToReceiver(call, received);
    receiver = world.receiver;
    const { hook, secret, space } = world;

    await warmUp({ call, paths: { single: '/v1/events', batch: '/v1/events/batch' }, event, untilReceived, ...o });

    // Throughput, one event per request: `events` events from `senders` senders, until the last is received.
    const singleIds = Array.from({ length: o.events }, (_, i) => `single_${i}`);
    let counts = await activity();
    const scraped = await scrapeCounters(url);
    let cpu = cpuPerEvent(child.pid, databaseCpu);
    let started = performance.now();
    let sent = 0;
    // `GET /metrics` halfway, as an operator's scraper would: what it shows has moved.
    const halfway = (async () => {
      const until = performance.now() + DRAIN_LIMIT_MS;
      while (sent < o.events / 2 && performance.now() < until) await sleep(20);
      return scrapeCounters(url);
    })();
    await sendSingles({
      ids: singleIds,
      senders: o.senders,
      send: (id) => {
        sent++;
        return call('POST', '/v1/events', event(id));
      },
    });
    await untilReceived(singleIds, 'one event per request');
    const endToEnd = (o.events * 1000) / (performance.now() - started);
    const singleCpu = cpu(o.events);
    const singleStore = perEvent(counts, await activity(), o.events);
    const metricsMoved = {
      halfway: countersMoved(scraped, await halfway),
      end: countersMoved(scraped, await scrapeCounters(url)),
    };
    console.log(`  ${label}: ${Math.round(endToEnd)} deliveries / s end to end (POST /v1/events)`);
    console.log(
      `  ${label}: /metrics halfway ${JSON.stringify(metricsMoved.halfway)}, at the end ${JSON.stringify(metricsMoved.end)}`,
    );

    // Throughput, batches: the same number of events in requests of `batchSize`, all sent at once.
    const batchIds = Array.from({ length: o.events }, (_, i) => `batch_${i}`);
    counts = await activity();
    cpu = cpuPerEvent(child.pid, databaseCpu);
    started = performance.now();
    let batch;
    try {
      await sendBatches({ call, path: '/v1/events/batch', event, ids: batchIds, batchSize: o.batchSize });
      const ingestMs = performance.now() - started;
      await untilReceived(batchIds, 'batches');
      batch = { endToEnd: (o.events * 1000) / (performance.now() - started), ingestMs, cpu: cpu(o.events) };
      batch.store = perEvent(counts, await activity(), o.events);
      console.log(
        `  ${label}: ${Math.round(batch.endToEnd)} deliveries / s end to end (POST /v1/events/batch, accepted in ${Math.round(ingestMs)} ms)`,
      );
    } catch (error) {
      // The batch route is new: a server without it is measured without it.
      if (!/\b404\b/.test(error.message)) throw error;
      console.warn(`  ${label}: POST /v1/events/batch is not served: batches not measured`);
    }
    // A/B runs compare throughput and CPU only.
    if (o.throughputOnly) return { label, endToEnd, singleCpu, singleStore, batch, metricsMoved };

    // The ceiling and the latency floor: the engine's HTTP client posting the same signed bodies
    // straight to the same receiver.
    const body = JSON.stringify({
      eventId: 'x',
      type: 'space_content_updated',
      spaceId: 'docs',
      installationId: space,
      revisionId: 'r',
    });
    const { ceiling, floor } = await measureDirect({ ...o, hook, secret, body, received, prefix: `direct_${label}` });
    console.log(
      `  ${label}: ceiling ${Math.round(ceiling)} posts / s; direct at ${o.steadyRate} / s p50 ${floor.p50.toFixed(1)} ms, p99 ${floor.p99.toFixed(1)} ms`,
    );

    // Latency at a steady rate, ingest to receipt; the server's memory right after it.
    const steady = await steadyRun('steady', o.steadyRate, o.steadySeconds);
    const memory = rssMiB(child.pid);
    console.log(
      `  ${label}: ${o.steadyRate} events / s for ${o.steadySeconds} s: p50 ${steady.p50.toFixed(1)} ms, p99 ${steady.p99.toFixed(1)} ms`,
    );

    // The highest steady rate sustained: steps up until one is not (the backlog drains between
    // steps); when the first is not, halves down until one is.
    const steps = [];
    const tryStep = async (rate) => {
      const step = await steadyRun(`step${rate}`, rate, o.stepSeconds);
      step.sustained = step.accepted === step.sent && step.receivedInTime === step.sent && step.p99 <= o.stepP99LimitMs;
      steps.push(step);
      console.log(
        `  ${label}: step ${rate} / s: ${step.receivedInTime} of ${step.sent} received in time, p99 ${step.p99.toFixed(1)} ms: ${step.sustained ? 'sustained' : 'not sustained'}`,
      );
      return step.sustained && step.drained;
    };
    for (const rate of o.steps) if (!(await tryStep(rate))) break;
    for (let rate = o.steps[0] / 2; !steps.some((s) => s.sustained) && rate >= o.lowestStep; rate /= 2) {
      await tryStep(rate);
    }
    const sustained = Math.max(0, ...steps.filter((s) => s.sustained).map((s) => s.rate));

    // A noisy neighbour: another organization's webhook installation whose URL accepts
    // connections and never answers, owed `noisyOwed` deliveries, while the healthy space gets
    // `noisyRate` events a second; the same load without it first.
    const quiet = await steadyRun('quiet', o.noisyRate, o.noisySeconds);
    hang = createTcpServer((socket) => {
      // Reads each request (so it sees the engine close the connection at its timeout) and never answers.
      socket.resume();
      hungSockets.add(socket);
      socket.on('close', () => hungSockets.delete(socket));
      socket.on('error', () => {});
    });
    await new Promise((r) => hang.listen(0, '127.0.0.1', r));
    await call('POST', '/v1/orgs', { id: 'globex', title: 'Globex' });
    await call('POST', '/v1/orgs/globex/spaces', { id: 'globex-docs', title: 'Globex docs' });
    const noisyOrg = (await call('POST', '/v1/orgs/globex/installations', { integration: 'webhook' })).id;
    const noisySpace = (await call('POST', `/v1/installations/${noisyOrg}/spaces/globex-docs`)).id;
    await call('PATCH', `/v1/installations/${noisySpace}/configuration`, {
      url: `http://127.0.0.1:${hang.address().port}/hook`,
      space_content_updated: true,
    });
    await sendSingles({
      ids: Array.from({ length: o.noisyOwed }, (_, i) => `noisy_${i}`),
      senders: o.senders,
      send: (id) => call('POST', '/v1/events', event(id, 'globex-docs')),
    });
    const owedBy = performance.now() + 60_000;
    let owed = 0;
    while (owed < o.noisyOwed && performance.now() < owedBy) {
      owed = (await call('GET', `/v1/installations/${noisySpace}/deliveries?status=pending&limit=200`)).length;
      if (owed < o.noisyOwed) await sleep(100);
    }
    if (owed < o.noisyOwed) throw new Error(`${label}: only ${owed} of ${o.noisyOwed} deliveries owed to the hung URL`);
    const hungAtStart = hungSockets.size;
    const noisy = await steadyRun('neighbour', o.noisyRate, o.noisySeconds);
    noisy.hungAtStart = hungAtStart;
    noisy.hungAtEnd = hungSockets.size;
    noisy.owed = owed;
    console.log(
      `  ${label}: at ${o.noisyRate} / s p99 ${quiet.p99.toFixed(1)} ms alone, ${noisy.p99.toFixed(1)} ms with the noisy neighbour (${owed} owed, ${hungAtStart} connections held)`,
    );
    for (const socket of hungSockets) socket.destroy();
    hang.close();
    hang = undefined;

    // The delivery engine alone (for the queue comparison): deliveries asked for through
    // `POST /v1/installations/{id}/deliveries` (the route the webhook integration calls), no routing or dispatch.
    const askFor = (eventId) =>
      call('POST', `/v1/installations/${space}/deliveries`, {
        url: hook,
        eventId,
        type: 'space_content_updated',
        payload: JSON.parse(body.replace('"eventId":"x"', `"eventId":"${eventId}"`)),
      });
    const engineIds = Array.from({ length: o.events }, (_, i) => `engine_${i}`);
    started = performance.now();
    await sendSingles({ ids: engineIds, senders: o.senders, send: askFor });
    await untilReceived(engineIds, 'the delivery engine alone');
    const engineRate = (o.events * 1000) / (performance.now() - started);
    const engineRun = await sendSteadily({
      rate: o.steadyRate,
      seconds: o.steadySeconds,
      maxInFlight: o.maxInFlight,
      send: (i) => askFor(`engine_steady_${i}`),
    });
    if (engineRun.failure) throw engineRun.failure;
    const engineSteadyIds = Array.from({ length: engineRun.count }, (_, i) => `engine_steady_${i}`);
    await untilReceived(engineSteadyIds, 'the delivery engine alone, steady');
    const engineLatencies = latenciesOf(received, engineSteadyIds, engineRun.scheduled);
    const engine = {
      perSecond: engineRate,
      p50: percentile(engineLatencies, 50),
      p99: percentile(engineLatencies, 99),
    };
    console.log(
      `  ${label}: delivery engine alone ${Math.round(engineRate)} / s; at ${o.steadyRate} / s p50 ${engine.p50.toFixed(1)} ms, p99 ${engine.p99.toFixed(1)} ms`,
    );

    return {
      label,
      endToEnd,
      singleCpu,
      singleStore,
      metricsMoved,
      batch,
      ceiling,
      floor,
      p50: steady.p50,
      p99: steady.p99,
      steady,
      steps,
      sustained,
      quiet,
      noisy,
      engine,
      memory,
      peakMemory: Math.max(peakRss, rssMiB(child.pid)),
    };
  } finally {
    clearInterval(sampler);
    for (const socket of hungSockets) socket.destroy();
    hang?.close();
    receiver?.close();
    receiver?.closeAllConnections();
    await stopServer(child);
  }
}

export async function benchDeliveries(options = {}) {
  const o = { ...DELIVERY_SETTINGS, ...options };
  return onEachBackend((label, env) => benchBackend(label, env, o), o.env);
}
