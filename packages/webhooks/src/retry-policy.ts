/**
 * The webhook retry policy (spec 7.1, 8 and DESIGN.md's settled rules), as pure functions.
 * One first attempt, then up to 3 retries after 1 s, 2 s and 4 s, each plus 0 to 10 % jitter:
 * at most 4 requests per delivery.
 */

export type Outcome = 'delivered' | 'retry' | 'fail';

export const MAX_RETRIES = 3;
export const MAX_ATTEMPTS = MAX_RETRIES + 1;
export const BASE_DELAY_MS = 1000;
/** Jitter: 0 to +10 % of the delay (retryDelay computes it as a tenth of `base * random`). */
export const JITTER_RATIO = 0.1;
/** The longest wait a receiver's `Retry-After` (on 429 and 503) can ask for before a retry. */
export const MAX_RETRY_AFTER_MS = 60_000;
/** A delivery attempt that has not answered after this long is a network error (retried). */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * What an attempt's result means: any 2xx is delivered; 429, any 5xx and network errors
 * (an Error: refused, reset, DNS failure, timeout) are retried; 400, every other 4xx, every
 * 3xx (redirects are never followed) and anything else fail without a retry.
 */
export function classifyOutcome(statusOrError: number | Error): Outcome {
  if (statusOrError instanceof Error) return 'retry';
  const status = statusOrError;
  if (!Number.isInteger(status)) return 'fail';
  if (status >= 200 && status <= 299) return 'delivered';
  if (status === 429 || (status >= 500 && status <= 599)) return 'retry';
  return 'fail';
}

/**
 * Whole milliseconds to wait before retry `retryNumber` (1, 2 or 3): 1000, 2000 or 4000, plus
 * `random()` × 10 % of that (`random` returns a number in [0, 1), Math.random by default). When the
 * receiver asked for longer (`retryAfterMs`, from `Retry-After`), that wait, up to
 * MAX_RETRY_AFTER_MS (60 s); never shorter than the schedule.
 */
export function retryDelay(
  retryNumber: number,
  random: () => number = Math.random,
  retryAfterMs?: number | undefined,
): number {
  if (!Number.isInteger(retryNumber) || retryNumber < 1 || retryNumber > MAX_RETRIES) {
    throw new RangeError(`retryDelay: retryNumber must be 1 to ${MAX_RETRIES}, got ${retryNumber}`);
  }
  return jittered('retryDelay', BASE_DELAY_MS * 2 ** (retryNumber - 1), random, retryAfterMs, MAX_RETRY_AFTER_MS);
}

/** `base` plus `random()` × 10 % of it, or the longer wait a receiver asked for, up to `maxRetryAfterMs`. */
function jittered(
  caller: string,
  base: number,
  random: () => number,
  retryAfterMs: number | undefined,
  maxRetryAfterMs: number,
): number {
  const r = random();
  if (!(r >= 0 && r < 1)) throw new RangeError(`${caller}: random() must return a number in [0, 1), got ${r}`);
  // Divide by 10 rather than multiply by 0.1: the product can round up to a full 10 %.
  const scheduled = base + Math.floor((base * r) / 10);
  if (retryAfterMs === undefined || !(retryAfterMs > scheduled)) return scheduled;
  return Math.min(Math.ceil(retryAfterMs), maxRetryAfterMs);
}

/**
 * How long a 429 or 503 answer asks to wait, in ms, from its `Retry-After` header: delay-seconds
 * or an HTTP date (RFC 9110), measured from `now` (ms). Undefined for other statuses and for a
 * missing or unreadable header. Not bounded here: `retryDelay` bounds it.
 */
export function retryAfterMs(status: number, header: string | null | undefined, now: number): number | undefined {
  if ((status !== 429 && status !== 503) || typeof header !== 'string') return undefined;
  const value = header.trim();
  if (/^\d{1,10}$/.test(value)) return Number(value) * 1000;
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Delivery policies (issue 25): how long a delivery keeps being retried. Each is named, and holds
 * its own schedule; the delivery engine asks the delivery's policy for the next wait (`nextRetry`)
 * and never special-cases one. `standard` is the spec's schedule above and the default.
 */
export const DELIVERY_POLICY_NAMES = ['standard', 'extended'] as const;
export type DeliveryPolicyName = (typeof DELIVERY_POLICY_NAMES)[number];
export const DEFAULT_DELIVERY_POLICY: DeliveryPolicyName = 'standard';

export interface DeliveryPolicy {
  name: DeliveryPolicyName;
  /** Requests per delivery at most: the first attempt and every retry. */
  maxAttempts: number;
  /** The longest wait a receiver's `Retry-After` (429, 503) can ask for before one retry. */
  maxRetryAfterMs: number;
  /** The waits before retry 1, 2, … without jitter, in ms (each gets 0 to +10 % on top). */
  baseDelaysMs: readonly number[];
  /** The schedule in words, as the dashboard and the README show it. */
  summary: string;
}

/** Extended: 5 s, doubling each retry up to a cap of 2 h, then every 2 h; 42 retries in all. */
export const EXTENDED_FIRST_DELAY_MS = 5_000;
export const EXTENDED_MAX_DELAY_MS = 2 * 3_600_000;
export const EXTENDED_MAX_RETRIES = 42;

function extendedDelays(): number[] {
  return Array.from({ length: EXTENDED_MAX_RETRIES }, (_, i) =>
    Math.min(EXTENDED_FIRST_DELAY_MS * 2 ** i, EXTENDED_MAX_DELAY_MS),
  );
}

export const DELIVERY_POLICIES: Readonly<Record<DeliveryPolicyName, DeliveryPolicy>> = {
  standard: {
    name: 'standard',
    maxAttempts: MAX_ATTEMPTS,
    maxRetryAfterMs: MAX_RETRY_AFTER_MS,
    baseDelaysMs: Array.from({ length: MAX_RETRIES }, (_, i) => BASE_DELAY_MS * 2 ** i),
    summary:
      'Standard: the first attempt, then retries after 1, 2 and 4 seconds (each +0–10 %): 4 attempts within about 8 seconds.',
  },
  extended: {
    name: 'extended',
    maxAttempts: EXTENDED_MAX_RETRIES + 1,
    maxRetryAfterMs: EXTENDED_MAX_DELAY_MS,
    baseDelaysMs: extendedDelays(),
    summary:
      'Extended: the first attempt, then retries after 5 s, 10 s, 20 s and so on, doubling up to 85 minutes, then every 2 hours (each +0–10 %): 43 attempts over about 2 days 17 hours, never more than 3 days.',
  },
};

/** Whether `name` is a delivery policy's name. */
export function isDeliveryPolicyName(name: unknown): name is DeliveryPolicyName {
  return typeof name === 'string' && (DELIVERY_POLICY_NAMES as readonly string[]).includes(name);
}

/**
 * The policy named `name`; a name that is no policy's (an unknown value stored by a newer
 * version, say) reads as the default. Names a person types are checked with `deliveryPolicyProblem`.
 */
export function deliveryPolicy(name: string | null | undefined): DeliveryPolicy {
  return isDeliveryPolicyName(name) ? DELIVERY_POLICIES[name] : DELIVERY_POLICIES[DEFAULT_DELIVERY_POLICY];
}

/** What is wrong with `value` as a delivery policy's name at `field`, for a person to fix; undefined when nothing is. */
export function deliveryPolicyProblem(field: string, value: unknown): string | undefined {
  if (isDeliveryPolicyName(value)) return undefined;
  const shown = typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? String(value));
  return `\`${field}\` must be one of ${DELIVERY_POLICY_NAMES.join(', ')} (got ${shown}): standard retries after 1, 2 and 4 s, extended over up to 3 days`;
}

/**
 * Whole milliseconds to wait before retry `retryNumber` (1 up to `maxAttempts - 1`) under `policy`:
 * the schedule's wait plus `random()` × 10 % of it; when the receiver asked for longer
 * (`retryAfterMs`), that wait, up to the policy's `maxRetryAfterMs`; never shorter than the schedule.
 */
export function policyRetryDelay(
  policy: DeliveryPolicy,
  retryNumber: number,
  random: () => number = Math.random,
  retryAfterMs?: number | undefined,
): number {
  if (!Number.isInteger(retryNumber) || retryNumber < 1 || retryNumber >= policy.maxAttempts) {
    throw new RangeError(
      `policyRetryDelay: retryNumber must be 1 to ${policy.maxAttempts - 1} for the ${policy.name} policy, got ${retryNumber}`,
    );
  }
  const base = policy.baseDelaysMs[retryNumber - 1] as number;
  return jittered('policyRetryDelay', base, random, retryAfterMs, policy.maxRetryAfterMs);
}

/**
 * After attempt `attemptNumber` (1 for the first) of a delivery that should be retried: the wait
 * before the next attempt in ms, or null when `policy` allows no more attempts (the delivery is
 * exhausted and fails).
 */
export function nextRetry(
  policy: DeliveryPolicy,
  attemptNumber: number,
  random: () => number = Math.random,
  retryAfterMs?: number | undefined,
): number | null {
  if (attemptNumber >= policy.maxAttempts) return null;
  return policyRetryDelay(policy, attemptNumber, random, retryAfterMs);
}

/** The shortest and longest time from a delivery's first attempt to its last under `policy` (no `Retry-After`). */
export function policySpanMs(policy: DeliveryPolicy): { min: number; max: number } {
  const min = policy.baseDelaysMs.reduce((sum, delay) => sum + delay, 0);
  const max = policy.baseDelaysMs.reduce((sum, delay) => sum + delay + Math.ceil(delay / 10) - 1, 0);
  return { min, max };
}
