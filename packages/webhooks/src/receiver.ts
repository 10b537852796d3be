/**
 * A webhook receiver for fetch handlers (workerd, Deno, Bun, Node through `@portico/webhooks/node`):
 * reads the raw body under a size limit, verifies `X-Platform-Signature` or the Standard Webhooks
 * headers (either set, so a proxy that keeps only one still works) before parsing, drops
 * repeated `eventId`s, and answers as spec 4.5 and 7.2 recommend: 401 `{ error }` for a bad
 * signature, 200 `{ received: true }` once the event is handled.
 */
import { type DedupeStore, MemoryDedupeStore } from './dedupe-store.js';
import { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER } from './signature.js';
import { WEBHOOK_SIGNATURE_HEADER } from './standard-webhooks.js';
import { hasSignatureHeaders, verify } from './verify.js';

export interface WebhookEvent {
  eventId: string;
  type: string;
  installationId?: string;
  [field: string]: unknown;
}

export interface ReceiverOptions {
  /** The signing secret, or several during a rotation. */
  secret: string | readonly string[];
  /** Handles a verified, first-seen event. Throwing answers 500, so the platform retries. */
  onEvent: (event: WebhookEvent, request: Request) => void | Promise<void>;
  toleranceSeconds?: number;
  /** How long an eventId is remembered (default 120 s, spec 8), and where; `false` turns dedupe off. */
  dedupe?: false | { ttlSeconds?: number; store?: DedupeStore };
  /** Bodies larger than this answer 413 (default 1 MiB). */
  maxBodyBytes?: number;
}

export interface WebhookReceiver {
  fetch(request: Request): Promise<Response>;
}

export const DEFAULT_DEDUPE_SECONDS = 120;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export function createWebhookReceiver(options: ReceiverOptions): WebhookReceiver {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const dedupe =
    options.dedupe === false
      ? undefined
      : {
          store: options.dedupe?.store ?? new MemoryDedupeStore(),
          ttlMs: (options.dedupe?.ttlSeconds ?? DEFAULT_DEDUPE_SECONDS) * 1000,
        };

  return {
    async fetch(request) {
      if (request.method !== 'POST') return error(405, 'Method not allowed: webhooks are delivered with POST');
      if (!hasSignatureHeaders(request.headers)) {
        return error(401, `missing signature: neither ${SIGNATURE_HEADER} nor ${WEBHOOK_SIGNATURE_HEADER} is present`);
      }
      const body = await readLimited(request, maxBodyBytes);
      if (body === undefined) return error(413, `body larger than ${maxBodyBytes} bytes`);
      const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
      if (!(await verify(options.secret, body, request.headers, { toleranceSeconds }))) {
        return error(401, 'invalid signature: it does not match the body and secret, or its timestamp is too old');
      }
      let event: WebhookEvent;
      try {
        event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
      } catch {
        return error(400, 'the body is not valid UTF-8 JSON');
      }
      if (typeof event !== 'object' || event === null || typeof event.eventId !== 'string' || event.eventId === '') {
        return error(400, 'the body has no eventId');
      }
      if (dedupe !== undefined && !(await dedupe.store.claim(event.eventId, dedupe.ttlMs))) {
        return Response.json({ received: true, duplicate: true });
      }
      try {
        await options.onEvent(event, request);
      } catch {
        await dedupe?.store.release(event.eventId);
        return error(500, 'the event could not be processed');
      }
      return Response.json({ received: true });
    },
  };
}

function error(status: number, message: string): Response {
  return Response.json({ error: message }, { status });
}

/** The body's bytes, or undefined once it exceeds `limit` (reading stops there). */
async function readLimited(request: Request, limit: number): Promise<Uint8Array | undefined> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) return undefined;
  if (request.body === null) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
