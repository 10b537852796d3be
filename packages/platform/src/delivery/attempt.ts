/**
 * One delivery attempt: sign the body afresh with every valid secret (`X-Platform-Signature` and
 * the Standard Webhooks headers), POST it, classify the answer, schedule the next attempt by the
 * delivery's own policy (`standard` or `extended`, `@portico/webhooks`), and write the result (the
 * attempt's log line, the delivery's new state and its endpoint's health) in one transaction, only
 * while this node still holds the delivery's lease.
 */
import { classifyOutcome, deliveryPolicy, nextRetry, type Outcome, retryAfterMs } from '@portico/webhooks';
import type { Logger } from 'pino';
import { LeaseLost } from '../errors/lease-lost.js';
import type { DeliveryRow } from '../storage/repositories/delivery-queue.js';
import * as queue from '../storage/repositories/delivery-queue.js';
import type { ServiceContext } from '../types.js';
import { attemptEnded, NO_HEALTH_CHANGE, recordAttempt, successWritten } from './endpoints.js';
import { answerError, type PostResult, postWebhook } from './post-webhook.js';
import { signatureHeaders, webhookIdOf } from './signature-headers.js';
import { validSecrets } from './signing-secrets.js';

/**
 * The longest wait before a retry that a delivery spends claimed, holding its slots (every wait of
 * the standard policy, Retry-After included). A longer one (the extended policy's 5 s doubling up
 * to 2 h) gives the row back: a slow or dead endpoint on `extended` must not hold its host's and
 * installation's slots for hours; when due, a claim finds it and it takes its turn like other work.
 */
export const HOLD_RETRIES_UP_TO_MS = 60_000;

export interface AttemptSettings {
  ctx: ServiceContext;
  userAgent: string;
  allowPrivateNetwork: boolean;
  timeoutMs: number;
  leaseMs: number;
  disableAfterMs: number;
  now: () => number;
  random?: (() => number) | undefined;
  logger?: Logger | undefined;
}

export interface AttemptResult {
  /** The delivery's status after the attempt. */
  status: DeliveryRow['status'];
  /** When the next attempt is due, for a delivery still pending. */
  next: number | null;
  /** The receiver did not answer: a timeout, or a failure at the network level. */
  unanswered: boolean;
  /** This attempt disabled the endpoint: what it is owed has ended `failed`. */
  disabledEndpoint: boolean;
  /** The other deliveries of the endpoint that its disabling (by this attempt) ended failed. */
  endedByDisabling: string[];
  /** How the POST went (metrics: its outcome class and duration). */
  post: PostResult;
}

/**
 * Attempts a delivery this node holds the lease of. `keepClaimed`: a delivery to retry within
 * HOLD_RETRIES_UP_TO_MS keeps its lease (until its next attempt is due, plus the lease time), so
 * this node attempts it again itself, in its window; the row is then updated in memory to match.
 * `sealedSecrets`, read with the delivery's endpoint when it was asked for or by the claim that took
 * it, sign it; else the valid secrets are read now.
 */
export async function attemptDelivery(
  settings: AttemptSettings,
  row: DeliveryRow,
  options: {
    keepClaimed: boolean;
    sealedSecrets?: string[] | undefined;
    /** The W3C traceparent of the attempt's span, sent to the receiver when tracing says so. */
    traceparent?: string | undefined;
  },
): Promise<AttemptResult> {
  const { ctx } = settings;
  const number = row.attempts + 1;
  const started = settings.now();
  const sealed = options.sealedSecrets ?? [];
  const secrets =
    sealed.length > 0 ? sealed.map((secret) => ctx.box.open(secret)) : await validSecrets(ctx, row.installation_id);
  const headers = {
    // The installation's own first: none of them may name a header set below (custom-headers.ts).
    ...(row.headers === null ? {} : (JSON.parse(row.headers) as Record<string, string>)),
    'content-type': 'application/json',
    'user-agent': settings.userAgent,
    ...(await signatureHeaders(secrets, {
      webhookId: webhookIdOf(row),
      body: row.body,
      timestamp: Math.floor(started / 1000),
    })),
    'x-platform-event-id': row.event_id,
    'x-platform-event-type': row.type,
    'x-platform-delivery-id': row.id,
    'x-platform-delivery-attempt': String(number),
  };
  const result = await postWebhook(row.url, headers, row.body, {
    timeoutMs: settings.timeoutMs,
    allowPrivateNetwork: settings.allowPrivateNetwork,
    traceparent: options.traceparent,
  });
  let outcome: Outcome;
  let error: string | null = null;
  let status: number | null = null;
  let excerpt: string | null = null;
  let retryAfter: string | undefined;
  if (result.kind === 'refused') {
    outcome = 'fail';
    error = `refused: ${result.reason}`;
  } else if (result.kind === 'network') {
    outcome = classifyOutcome(result.error);
    error = result.error.message;
  } else {
    status = result.status;
    excerpt = result.excerpt;
    retryAfter = result.retryAfter;
    outcome = classifyOutcome(result.status);
    if (outcome !== 'delivered') error = answerError(result);
  }
  const finished = settings.now();
  // Unless the endpoint's health is written too, the result is one statement on PostgreSQL: it
  // then runs without a transaction (group-commit.ts), in one statement with the results of the
  // attempts that end together (delivery-queue.ts, `writeAttempt`), and its commit does not wait
  // for the WAL's flush (database.ts, `engineDb`).
  const standalone = !attemptEnded(row.endpoint_id, outcome === 'delivered', finished);
  const written = await ctx.write(
    async (trx) => {
      const health =
        standalone || row.endpoint_id === null
          ? NO_HEALTH_CHANGE
          : await recordAttempt(
              trx,
              row.endpoint_id,
              outcome === 'delivered'
                ? { ok: true, at: finished }
                : { ok: false, at: finished, error: error ?? 'failed', gone: status === 410 },
              settings.disableAfterMs,
            );
      const stopped = outcome !== 'delivered' && health.disabledReason !== undefined;
      // The delivery's own policy says when the next attempt is due, or that there is none: a 429
      // or 503 with Retry-After waits as long as asked, up to the policy's bound (retry-policy.ts).
      const asked = status === null ? undefined : retryAfterMs(status, retryAfter, finished);
      const wait =
        outcome === 'retry' && !stopped ? nextRetry(deliveryPolicy(row.policy), number, settings.random, asked) : null;
      const retry = wait !== null;
      const next = retry ? finished + wait : null;
      const final: DeliveryRow['status'] = outcome === 'delivered' ? 'delivered' : retry ? 'pending' : 'failed';
      const lastError = stopped
        ? (health.disabledReason as string)
        : final === 'failed' && outcome === 'retry'
          ? `gave up after ${number} attempts: ${error}`
          : error;
      // A longer wait (the extended policy's) frees its slots: the row waits unclaimed until a claim finds it due.
      const held = options.keepClaimed && wait !== null && wait <= HOLD_RETRIES_UP_TO_MS;
      const lease = final === 'pending' && held && next !== null ? next + settings.leaseMs : null;
      const updated = await queue.writeAttempt(
        trx,
        ctx.dialect,
        row,
        {
          number,
          at: started,
          status,
          duration_ms: Math.round(result.durationMs),
          error,
          response_excerpt: excerpt,
        },
        {
          attempts: number,
          status: final,
          next_attempt_at: next,
          claimed_until: lease,
          last_error: lastError,
          updated_at: finished,
        },
      );
      // Another node took the delivery over (this one stalled past its lease): its result stands.
      if (updated === 0) throw new LeaseLost(row.id);
      return { final, next, lease, health };
    },
    // Acknowledged to no one: after a crash that lost it, the attempt is made again.
    { standalone, engine: true },
  );
  const { health } = written;
  if (!standalone && outcome === 'delivered' && row.endpoint_id !== null) successWritten(row.endpoint_id, finished);
  if (health.disabledNow) settings.logger?.warn({ endpoint: row.endpoint_id, url: row.url }, 'endpoint disabled');
  // Early warnings (alerts/operator-alerts.ts): failures in a row, and an endpoint answering again.
  if (row.endpoint_id !== null && health.failures !== undefined) {
    if (outcome === 'delivered') ctx.alerts?.endpointAnswered?.(row.installation_id, row.endpoint_id, health.failures);
    else ctx.alerts?.endpointFailed?.(row.installation_id, row.endpoint_id, health.failures, error ?? 'failed');
  }
  // Only now that the result is committed does the row change (a write may run twice).
  Object.assign(row, { attempts: number, status: written.final, next_attempt_at: written.next });
  row.claimed_until = written.lease;
  return {
    status: written.final,
    next: written.next,
    unanswered: result.kind === 'network',
    disabledEndpoint: health.disabledNow,
    endedByDisabling: health.endedByDisabling,
    post: result,
  };
}
