/**
 * The reference webhook receiver (spec 4.5, 6.2, 8): verifies `X-Platform-Signature` on the raw
 * body before parsing it, answers 401 with a JSON `error` for a bad signature, drops an `eventId`
 * seen in the last 2 minutes, answers 200 `{ "received": true }` at once, and does its work after
 * answering (spec 4.2). Plain JavaScript, so `node src/main.js` runs it on any Node ≥ 20.
 */
import { createServer } from 'node:http';
import { createWebhookReceiver } from '@portico/webhooks';
import { toNodeListener } from '@portico/webhooks/node';

/**
 * @param {{ secret: string | string[], work: (event: import('@portico/webhooks').WebhookEvent) => void | Promise<void> }} options
 * @returns {import('node:http').Server}
 */
export function createReceiverServer(options) {
  const receiver = createWebhookReceiver({
    secret: options.secret,
    dedupe: { ttlSeconds: 120 },
    onEvent(event) {
      // Answer first; the work runs on the next turn of the event loop.
      setImmediate(() => {
        Promise.resolve(options.work(event)).catch((error) => console.error(`work on ${event.eventId} failed:`, error));
      });
    },
  });
  return createServer(toNodeListener(receiver));
}
