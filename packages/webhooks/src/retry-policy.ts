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
  const base = BASE_DELAY_MS * 2 ** (retryNumber - 1);
  const r = random();
  if (!(r >= 0 && r < 1)) throw new RangeError(`retryDelay: random() must return a number in [0, 1), got ${r}`);
  // Divide by 10 rather than multiply by 0.1: the product can round up to a full 10 %.
  const scheduled = base + Math.floor((base * r) / 10);
  if (retryAfterMs === undefined || !(retryAfterMs > scheduled)) return scheduled;
  return Math.min(Math.ceil(retryAfterMs), MAX_RETRY_AFTER_MS);
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
