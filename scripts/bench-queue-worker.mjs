// The worker side of the job queue baselines (scripts/bench-queues.mjs), a process of its own as
// the Portico server is: takes delivery jobs from BullMQ (Redis) or graphile-worker (PostgreSQL)
// and does what the delivery engine does for one attempt: sign the body with @portico/webhooks and
// POST it with the engine's own HTTP client. Prints "ready" once it takes jobs; ends on SIGTERM.
//
// Environment: BENCH_QUEUE (bullmq | graphile-worker), BENCH_QUEUE_NAME, BENCH_REDIS_URL or
// BENCH_DATABASE_URL, BENCH_RECEIVER_URL, BENCH_SECRET, BENCH_CONCURRENCY.
import { postWebhook } from '@portico/platform';
import { sign } from '@portico/webhooks';

const env = process.env;
const url = env.BENCH_RECEIVER_URL;
const concurrency = Number(env.BENCH_CONCURRENCY);

/** One delivery attempt; throws (so the queue retries the job) unless the receiver answered 2xx. */
async function deliver({ eventId, body }, attempt) {
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Portico-Webhooks/bench',
    'x-platform-signature': await sign(env.BENCH_SECRET, body),
    'x-platform-event-id': eventId,
    'x-platform-event-type': 'space_content_updated',
    'x-platform-delivery-attempt': String(attempt),
  };
  const result = await postWebhook(url, headers, body, { timeoutMs: 10_000, allowPrivateNetwork: true });
  if (result.kind !== 'answered' || result.status < 200 || result.status > 299)
    throw new Error(`delivery ${eventId} failed: ${JSON.stringify(result)}`);
}

let stop;
if (env.BENCH_QUEUE === 'bullmq') {
  const { Worker } = await import('bullmq');
  const { Redis } = await import('ioredis');
  const connection = new Redis(env.BENCH_REDIS_URL, { maxRetriesPerRequest: null });
  const worker = new Worker(env.BENCH_QUEUE_NAME, (job) => deliver(job.data, job.attemptsMade + 1), {
    connection,
    concurrency,
  });
  worker.on('failed', (job, error) => console.error(`job ${job?.id} failed: ${error.message}`));
  await worker.waitUntilReady();
  stop = async () => {
    await worker.close();
    await connection.quit();
  };
} else if (env.BENCH_QUEUE === 'graphile-worker') {
  const { Logger, run } = await import('graphile-worker');
  const runner = await run({
    connectionString: env.BENCH_DATABASE_URL,
    concurrency,
    noHandleSignals: true,
    logger: new Logger(() => (level, message) => {
      if (level === 'error') console.error(message);
    }),
    taskList: { deliver: (payload, helpers) => deliver(payload, helpers.job.attempts) },
  });
  stop = () => runner.stop();
} else {
  throw new Error(`BENCH_QUEUE must be bullmq or graphile-worker, got "${env.BENCH_QUEUE}"`);
}

process.once('SIGTERM', async () => {
  await stop();
  process.exit(0);
});
console.log('ready');
