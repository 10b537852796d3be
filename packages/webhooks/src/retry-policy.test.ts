import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyOutcome, MAX_ATTEMPTS, MAX_RETRY_AFTER_MS, retryAfterMs, retryDelay } from './retry-policy.js';

describe('classifyOutcome', () => {
  const table: [number | Error, string][] = [
    [200, 'delivered'],
    [201, 'delivered'],
    [204, 'delivered'],
    [299, 'delivered'],
    [400, 'fail'],
    [401, 'fail'],
    [404, 'fail'],
    [410, 'fail'],
    [429, 'retry'],
    [499, 'fail'],
    [500, 'retry'],
    [502, 'retry'],
    [503, 'retry'],
    [599, 'retry'],
    [301, 'fail'],
    [302, 'fail'],
    [307, 'fail'],
    [100, 'fail'],
    [600, 'fail'],
    [Number.NaN, 'fail'],
    [new Error('connect ECONNREFUSED 127.0.0.1:1'), 'retry'],
    [new TypeError('fetch failed'), 'retry'],
    [new DOMException('The operation timed out.', 'TimeoutError') as unknown as Error, 'retry'],
  ];
  for (const [input, outcome] of table) {
    it(`${input instanceof Error ? input.message : input} → ${outcome}`, () => {
      expect(classifyOutcome(input)).toBe(outcome);
    });
  }
});

describe('retryDelay', () => {
  it('waits 1.0–1.1 s, 2.0–2.2 s and 4.0–4.4 s before retries 1, 2 and 3', () => {
    expect([1, 2, 3].map((n) => retryDelay(n, () => 0))).toEqual([1000, 2000, 4000]);
    expect([1, 2, 3].map((n) => retryDelay(n, () => 0.5))).toEqual([1050, 2100, 4200]);
    const top = [1, 2, 3].map((n) => retryDelay(n, () => 0.999999));
    expect(top[0]).toBeLessThan(1100);
    expect(top[1]).toBeLessThan(2200);
    expect(top[2]).toBeLessThan(4400);
  });

  it('stays inside the range for every random value', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, r) => {
          const base = 1000 * 2 ** (n - 1);
          const delay = retryDelay(n, () => r);
          return delay >= base && delay < base * 1.1;
        },
      ),
    );
  });

  it('allows 3 retries, 4 attempts in all', () => {
    expect(MAX_ATTEMPTS).toBe(4);
    for (const n of [0, 4, 1.5, -1]) expect(() => retryDelay(n)).toThrow(/retryNumber must be 1 to 3/);
  });

  it('refuses a random source outside [0, 1)', () => {
    expect(() => retryDelay(1, () => 1)).toThrow(/\[0, 1\)/);
    expect(() => retryDelay(1, () => -0.1)).toThrow(/\[0, 1\)/);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads delay-seconds and HTTP dates on 429 and 503 only', () => {
    expect(retryAfterMs(503, '30', now)).toBe(30_000);
    expect(retryAfterMs(429, ' 0 ', now)).toBe(0);
    expect(retryAfterMs(503, 'Thu, 01 Jan 2026 00:00:45 GMT', now)).toBe(45_000);
    expect(retryAfterMs(429, 'Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs(500, '30', now)).toBeUndefined();
    expect(retryAfterMs(502, '30', now)).toBeUndefined();
    for (const bad of [undefined, null, '', '-1', '1.5', 'soon', '2026-01-01T00:00:45Z']) {
      expect(retryAfterMs(503, bad, now)).toBeUndefined();
    }
  });

  it('waits as asked when that is longer than the schedule, up to 60 s, never shorter', () => {
    expect(MAX_RETRY_AFTER_MS).toBe(60_000);
    expect(retryDelay(1, () => 0.5, 30_000)).toBe(30_000);
    expect(retryDelay(2, () => 0.5, 600_000)).toBe(60_000);
    expect(retryDelay(3, () => 0.5, 0)).toBe(4200);
    expect(retryDelay(1, () => 0.5, 1020)).toBe(1050);
    expect(retryDelay(1, () => 0.5, undefined)).toBe(1050);
  });
});
