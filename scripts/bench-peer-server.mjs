// A peer of Portico in the benchmarks (scripts/bench-peers.mjs): the webhook pipeline a team would
// build instead, in one process as `portico serve` is. A `node:http` ingest route takes a JSON event
// (`POST /events`, one per request) or many (`POST /events/batch` `{ events: [...] }`, at most
// 1,000), authenticated with a bearer token and validated as a real route would, and enqueues a
// delivery job per event (BullMQ on Redis, or graphile-worker on PostgreSQL); a worker in the same
// process signs each delivery with @portico/webhooks and POSTs it to the receiver, 4 attempts with
// backoff. Prints "listening on URL" once it takes requests and jobs; ends on SIGTERM, or when
// its standard input closes (the benchmark that started it has ended).
//
// Environment: PEER_QUEUE (bullmq | graphile-worker | portico-floor), PEER_TOKEN, PEER_REDIS_URL
// and PEER_QUEUE_NAME, or PEER_DATABASE_URL (a database of its own, migrated here), PEER_RECEIVER_URL,
// PEER_SECRET, PEER_CONCURRENCY. portico-floor (scripts/bench-floor-queue.mjs) is not a peer but
// Portico's floor: its rows with nothing else, in a database Portico made (PEER_SQLITE_FILE or
// PEER_DATABASE_URL).
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { ATTEMPTS, startQueueWorker } from './bench-queue-worker.mjs';

const env = process.env;
const concurrency = Number(env.PEER_CONCURRENCY);
const expected = Buffer.from(`Bearer ${env.PEER_TOKEN}`);
const MAX_SINGLE_BYTES = 64 * 1024;
const MAX_BATCH_BYTES = 16 * 1024 * 1024;
const MAX_BATCH_EVENTS = 1000;

class HttpError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The delivery job of one event: its id and the body the webhook would carry, or throws a 400. */
function jobOf(event) {
  const field = (name) => {
    const value = event[name];
    if (typeof value !== 'string' || value.length === 0 || value.length > 200)
      throw new HttpError(400, 'invalid_event', `${name} must be a non-empty string of at most 200 characters`);
    return value;
  };
  if (typeof event !== 'object' || event === null || Array.isArray(event))
    throw new HttpError(400, 'invalid_event', 'an event is a JSON object');
  if (event.type !== 'space_content_updated')
    throw new HttpError(400, 'invalid_event', `unknown event type ${JSON.stringify(event.type)}`);
  const eventId = event.eventId === undefined ? `evt_${randomUUID()}` : field('eventId');
  const body = JSON.stringify({
    eventId,
    type: event.type,
    spaceId: field('spaceId'),
    installationId: 'inst_peer',
    revisionId: field('revisionId'),
  });
  return { eventId, body };
}

/** The request's body parsed as JSON, at most `limit` bytes; throws a 4xx otherwise. */
async function readJson(request, limit) {
  if (!/^application\/json\b/.test(request.headers['content-type'] ?? ''))
    throw new HttpError(415, 'unsupported_media_type', 'the body must be application/json');
  const chunks = [];
  let size = 0;
  for await (const chunk of request) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, 'too_large', `the body is over ${limit} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'invalid_json', 'the body is not JSON');
  }
}

function authorized(request) {
  const given = Buffer.from(request.headers.authorization ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const answer = (response, status, value) => {
  const text = JSON.stringify(value);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
};

/** The queue: `add(job)` and `addMany(jobs)` (one round trip or transaction), and `stop()`. */
async function openQueue() {
  if (env.PEER_QUEUE === 'bullmq') {
    const { Queue } = await import('bullmq');
    const { Redis } = await import('ioredis');
    const connect = () => new Redis(env.PEER_REDIS_URL, { maxRetriesPerRequest: null });
    const producer = connect();
    const consumer = connect();
    const queue = new Queue(env.PEER_QUEUE_NAME, { connection: producer });
    const opts = {
      attempts: ATTEMPTS,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: true,
      removeOnFail: { count: 10_000 },
    };
    const stopWorker = await startQueueWorker({
      queue: { kind: 'bullmq', name: env.PEER_QUEUE_NAME, connection: consumer },
      url: env.PEER_RECEIVER_URL,
      secret: env.PEER_SECRET,
      concurrency,
    });
    return {
      add: (job) => queue.add('deliver', job, opts),
      addMany: (jobs) => queue.addBulk(jobs.map((data) => ({ name: 'deliver', data, opts }))),
      stop: async () => {
        await stopWorker();
        await queue.close();
        await Promise.all([producer.quit(), consumer.quit()]);
      },
    };
  }
  if (env.PEER_QUEUE === 'graphile-worker') {
    const { makeWorkerUtils } = await import('graphile-worker');
    const { default: pg } = await import('pg');
    // One pool for the route and the worker: its jobs, the route's inserts and the listener.
    const pgPool = new pg.Pool({ connectionString: env.PEER_DATABASE_URL, max: concurrency + 4 });
    pgPool.on('error', (error) => console.error(`pool: ${error.message}`));
    const utils = await makeWorkerUtils({ pgPool });
    await utils.migrate();
    const stopWorker = await startQueueWorker({
      queue: { kind: 'graphile-worker', pgPool },
      url: env.PEER_RECEIVER_URL,
      secret: env.PEER_SECRET,
      concurrency,
    });
    return {
      add: (job) => utils.addJob('deliver', job, { maxAttempts: ATTEMPTS }),
      addMany: (jobs) =>
        utils.addJobs(jobs.map((payload) => ({ identifier: 'deliver', payload, maxAttempts: ATTEMPTS }))),
      stop: async () => {
        await stopWorker();
        await utils.release();
        await pgPool.end();
      },
    };
  }
  if (env.PEER_QUEUE === 'portico-floor') {
    const { openFloorQueue } = await import('./bench-floor-queue.mjs');
    return openFloorQueue({
      sqliteFile: env.PEER_SQLITE_FILE,
      databaseUrl: env.PEER_DATABASE_URL,
      receiverUrl: env.PEER_RECEIVER_URL,
      secret: env.PEER_SECRET,
      concurrency,
    });
  }
  throw new Error(`PEER_QUEUE must be bullmq, graphile-worker or portico-floor, got "${env.PEER_QUEUE}"`);
}

const queue = await openQueue();

const server = createServer(async (request, response) => {
  try {
    const path = request.url;
    if (request.method !== 'POST' || (path !== '/events' && path !== '/events/batch'))
      throw new HttpError(404, 'not_found', 'no such route');
    if (!authorized(request)) throw new HttpError(401, 'unauthorized', 'a valid bearer token is required');
    if (path === '/events') {
      const job = jobOf(await readJson(request, MAX_SINGLE_BYTES));
      await queue.add(job);
      answer(response, 202, { eventId: job.eventId });
      return;
    }
    const { events } = (await readJson(request, MAX_BATCH_BYTES)) ?? {};
    if (!Array.isArray(events) || events.length === 0 || events.length > MAX_BATCH_EVENTS)
      throw new HttpError(400, 'invalid_batch', `events must be an array of 1 to ${MAX_BATCH_EVENTS} events`);
    // Each event stands alone, as on the single route: an invalid one is refused, the others taken.
    const results = [];
    const jobs = [];
    for (const event of events) {
      try {
        const job = jobOf(event);
        jobs.push(job);
        results.push({ eventId: job.eventId });
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        results.push({ error: { code: error.code, message: error.message } });
      }
    }
    if (jobs.length > 0) await queue.addMany(jobs);
    answer(response, 202, { results });
  } catch (error) {
    if (error instanceof HttpError) {
      // Whatever of the body is left unread is dropped with the connection.
      if (!request.complete) response.setHeader('connection', 'close');
      answer(response, error.status, { error: { code: error.code, message: error.message } });
    } else {
      console.error(error);
      answer(response, 500, { error: { code: 'internal', message: 'the event was not accepted' } });
    }
  }
});
server.keepAliveTimeout = 65_000;
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  server.close();
  server.closeAllConnections();
  await queue.stop();
  process.exit(0);
};
process.once('SIGTERM', shutdown);
// Its standard input is the benchmark's pipe: when it closes, the benchmark has ended, however it
// ended, and so does this process.
process.stdin.on('end', shutdown).on('error', shutdown).resume();
console.log(`listening on http://127.0.0.1:${server.address().port}`);
