/**
 * The delivery policies' windows on a fake clock: each policy's waits with their jitter bounds,
 * its number of attempts, its total span, and `Retry-After` within its own bound.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DELIVERY_POLICY,
  DELIVERY_POLICIES,
  DELIVERY_POLICY_NAMES,
  type DeliveryPolicy,
  deliveryPolicy,
  deliveryPolicyProblem,
  nextRetry,
  policyRetryDelay,
  policySpanMs,
  retryDelay,
} from './retry-policy.js';

const SECOND = 1000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Runs a delivery whose every attempt asks for a retry on a fake clock starting at 0: the times of
 * its attempts, until the policy says it is exhausted (bounded: never more than 1,000 attempts).
 */
function attemptTimes(policy: DeliveryPolicy, random: () => number, retryAfterMs?: number): number[] {
  let clock = 0;
  const times = [clock];
  for (let attempt = 1; attempt <= 1000; attempt++) {
    const wait = nextRetry(policy, attempt, random, retryAfterMs);
    if (wait === null) return times;
    clock += wait;
    times.push(clock);
  }
  throw new Error(`the ${policy.name} policy never ends`);
}

describe('the standard policy (the spec schedule, the default)', () => {
  const standard = DELIVERY_POLICIES.standard;

  it('is the default, and what an unknown or missing name reads as', () => {
    expect(DEFAULT_DELIVERY_POLICY).toBe('standard');
    expect(deliveryPolicy(undefined)).toBe(standard);
    expect(deliveryPolicy(null)).toBe(standard);
    expect(deliveryPolicy('weekly')).toBe(standard);
  });

  it('attempts at 0, then 1.0–1.1 s, 2.0–2.2 s and 4.0–4.4 s after the attempt before: 4 attempts', () => {
    expect(attemptTimes(standard, () => 0)).toEqual([0, 1000, 3000, 7000]);
    expect(attemptTimes(standard, () => 0.5)).toEqual([0, 1050, 3150, 7350]);
    expect(standard.maxAttempts).toBe(4);
    expect(policySpanMs(standard)).toEqual({ min: 7000, max: 7697 });
    expect(attemptTimes(standard, () => 0.999999).at(-1)).toBe(7697);
  });

  it('waits exactly as retryDelay does, for every retry and random value', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.option(fc.integer({ min: 0, max: 10 * 60 * SECOND }), { nil: undefined }),
        (n, r, asked) => policyRetryDelay(standard, n, () => r, asked) === retryDelay(n, () => r, asked),
      ),
    );
  });

  it('honours Retry-After up to 60 s', () => {
    expect(nextRetry(standard, 1, () => 0.5, 30 * SECOND)).toBe(30 * SECOND);
    expect(nextRetry(standard, 2, () => 0.5, HOUR)).toBe(60 * SECOND);
    expect(nextRetry(standard, 3, () => 0.5, 0)).toBe(4200);
    // Asking never adds attempts: after the 4th, the delivery is exhausted.
    expect(nextRetry(standard, 4, () => 0.5, 30 * SECOND)).toBeNull();
    expect(attemptTimes(standard, () => 0, HOUR)).toEqual([0, 60_000, 120_000, 180_000]);
  });
});

describe('the extended policy', () => {
  const extended = DELIVERY_POLICIES.extended;
  const doubling = [5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120].map((s) => s * SECOND);

  it('waits 5 s, doubling each retry up to 5,120 s, then 2 h each time: 42 retries, 43 attempts', () => {
    expect(extended.maxAttempts).toBe(43);
    expect(extended.baseDelaysMs).toEqual([...doubling, ...Array.from({ length: 31 }, () => 2 * HOUR)]);
    const times = attemptTimes(extended, () => 0);
    expect(times).toHaveLength(43);
    expect(times.slice(1, 4)).toEqual([5 * SECOND, 15 * SECOND, 35 * SECOND]);
    expect(times[11]).toBe(10_235 * SECOND); // the last doubling step: about 2 h 51 min after the first
  });

  it('keeps every wait within +0 to 10 % of its step, for every random value', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 42 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, r) => {
          const base = extended.baseDelaysMs[n - 1] as number;
          const wait = policyRetryDelay(extended, n, () => r);
          return Number.isInteger(wait) && wait >= base && wait < base * 1.1;
        },
      ),
    );
  });

  it('spans about 2 days 17 hours, never more than 3 days, and outlasts a day-long outage', () => {
    const span = policySpanMs(extended);
    expect(span.min).toBe(233_435 * SECOND);
    expect(span.max).toBeLessThanOrEqual(3 * DAY);
    expect(attemptTimes(extended, () => 0).at(-1)).toBe(span.min);
    expect(attemptTimes(extended, () => 0.999999999).at(-1)).toBe(span.max);
    const times = attemptTimes(extended, () => 0.5);
    // A receiver down from the first attempt for a day still gets an attempt after it is back.
    expect(times.some((t) => t > DAY)).toBe(true);
    // It is never left waiting longer than 2 h 12 min between two attempts.
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(Math.max(...gaps)).toBeLessThan(2.2 * HOUR);
  });

  it('retries well past where standard gives up', () => {
    expect(nextRetry(DELIVERY_POLICIES.standard, 4, () => 0)).toBeNull();
    expect(nextRetry(extended, 4, () => 0)).toBe(40 * SECOND);
    expect(nextRetry(extended, 42, () => 0)).toBe(2 * HOUR);
    expect(nextRetry(extended, 43, () => 0)).toBeNull();
  });

  it('honours Retry-After up to 2 h, never shorter than the schedule, never with more attempts', () => {
    expect(extended.maxRetryAfterMs).toBe(2 * HOUR);
    expect(nextRetry(extended, 1, () => 0.5, 30 * SECOND)).toBe(30 * SECOND);
    expect(nextRetry(extended, 1, () => 0.5, 10 * 60 * SECOND)).toBe(10 * 60 * SECOND);
    expect(nextRetry(extended, 2, () => 0.5, DAY)).toBe(2 * HOUR);
    expect(nextRetry(extended, 11, () => 0.5, SECOND)).toBe(5120 * SECOND + 256 * SECOND);
    expect(attemptTimes(extended, () => 0, DAY)).toHaveLength(43);
  });

  it('refuses a retry number outside 1 to 42 and a random source outside [0, 1)', () => {
    for (const n of [0, 43, 1.5, -1]) {
      expect(() => policyRetryDelay(extended, n)).toThrow(/retryNumber must be 1 to 42 for the extended policy/);
    }
    expect(() => policyRetryDelay(extended, 1, () => 1)).toThrow(/\[0, 1\)/);
  });
});

describe('policy names', () => {
  it('are standard and extended; anything else is named with the allowed values', () => {
    expect(DELIVERY_POLICY_NAMES).toEqual(['standard', 'extended']);
    for (const name of DELIVERY_POLICY_NAMES) expect(deliveryPolicyProblem('delivery_policy', name)).toBeUndefined();
    expect(deliveryPolicyProblem('delivery_policy', 'weekly')).toBe(
      '`delivery_policy` must be one of standard, extended (got "weekly"): standard retries after 1, 2 and 4 s, extended over up to 3 days',
    );
    expect(deliveryPolicyProblem('policy', 3)).toMatch(/^`policy` must be one of standard, extended \(got 3\)/);
    expect(deliveryPolicyProblem('policy', 'Extended')).toMatch(/got "Extended"/);
  });

  it('each has a schedule in words', () => {
    expect(DELIVERY_POLICIES.standard.summary).toMatch(/1, 2 and 4 seconds/);
    expect(DELIVERY_POLICIES.extended.summary).toMatch(/every 2 hours.*43 attempts.*3 days/);
  });
});
