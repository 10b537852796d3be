// The worker side of the peers (scripts/bench-peers.mjs, run in scripts/bench-peer-server.mjs):
// takes delivery jobs from BullMQ (Redis) or graphile-worker (PostgreSQL) and does what Portico's
// delivery engine does for one attempt: sign the body with @portico/webhooks and POST it over
// kept-alive node:http connections (the careful pipeline issue 39 measures against; Portico's own
// engine posts with undici, decision 063), keeping the first 16 KiB of the answer, within a
// deadline, the queue retrying a failed attempt (4 attempts in all, with backoff).
import http from 'node:http';
import { sign } from '@portico/webhooks';

const EXCERPT_BYTES = 16 * 1024;
const agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 30_000 });

/** POSTs `body` to `url`; answers the status, or throws on a network failure or past `timeoutMs`. */
export function postKeptAlive(url, headers, body, timeoutMs = 10_000) {
  const bytes = Buffer.from(body, 'utf8');
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': String(bytes.length) } },
      (response) => {
        const kept = [];
        let keptBytes = 0;
        response.on('data', (chunk) => {
          if (keptBytes >= EXCERPT_BYTES) return;
          kept.push(chunk.subarray(0, EXCERPT_BYTES - keptBytes));
          keptBytes += Math.min(chunk.length, EXCERPT_BYTES - keptBytes);
        });
        response.on('end', () => {
          clearTimeout(deadline);
          resolve({ status: response.statusCode ?? 0, excerpt: Buffer.concat(kept).toString('utf8') });
        });
        response.on('error', reject);
      },
    );
    const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    request.on('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    request.end(bytes);
  });
}

/** Attempts per delivery, as Portico's engine: the first and 3 retries. */
export const ATTEMPTS = 4;

/**
 * Answers `deliver(job, attempt)`: one delivery attempt of `{ eventId, body }` to `url`; throws (so
 * the queue retries the job) unless the receiver answered 2xx.
 */
export function deliveryAttempt({ url, secret }) {
  return async ({ eventId, body }, attempt) => {
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Portico-Webhooks/bench',
      'x-platform-signature': await sign(secret, body),
      'x-platform-event-id': eventId,
      'x-platform-event-type': 'space_content_updated',
      'x-platform-delivery-attempt': String(attempt),
    };
    const result = await postKeptAlive(url, headers, body);
    if (result.status < 200 || result.status > 299)
      throw new Error(`delivery ${eventId} failed: ${JSON.stringify(result)}`);
  };
}

/**
 * Starts a worker taking `deliver` jobs, `concurrency` at a time, and answers `stop()`:
 * `queue` is `{ kind: 'bullmq', name, connection }` (an ioredis connection, left open) or
 * `{ kind: 'graphile-worker', pgPool }` (a pg pool whose database graphile-worker has migrated, left open).
 */
export async function startQueueWorker({ queue, url, secret, concurrency }) {
  const deliver = deliveryAttempt({ url, secret });
  if (queue.kind === 'bullmq') {
    const { Worker } = await import('bullmq');
    const worker = new Worker(queue.name, (job) => deliver(job.data, job.attemptsMade + 1), {
      connection: queue.connection,
      concurrency,
    });
    worker.on('failed', (job, error) => console.error(`job ${job?.id} failed: ${error.message}`));
    worker.on('error', (error) => console.error(`worker: ${error.message}`));
    await worker.waitUntilReady();
    return () => worker.close();
  }
  if (queue.kind === 'graphile-worker') {
    const { Logger, run } = await import('graphile-worker');
    const runner = await run({
      pgPool: queue.pgPool,
      concurrency,
      noHandleSignals: true,
      logger: new Logger(() => (level, message) => {
        if (level === 'error') console.error(message);
      }),
      taskList: { deliver: (payload, helpers) => deliver(payload, helpers.job.attempts) },
    });
    return () => runner.stop();
  }
  throw new Error(`the queue must be bullmq or graphile-worker, got "${queue.kind}"`);
}
