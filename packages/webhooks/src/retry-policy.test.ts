import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyOutcome, MAX_ATTEMPTS, retryDelay } from './retry-policy.js';

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
