import { describe, expect, it } from 'vitest';
import { CircuitBreakers } from './circuit-breaker.js';

describe('circuit breakers', () => {
  function breakers() {
    let now = 0;
    const clock = {
      advance: (ms: number) => {
        now += ms;
      },
    };
    return { clock, b: new CircuitBreakers({ threshold: 3, baseDelayMs: 1000, maxDelayMs: 4000, now: () => now }) };
  }

  it('opens after the threshold of failures in a row, and a success in between resets the count', () => {
    const { b } = breakers();
    expect(b.failed('x')).toBeUndefined();
    expect(b.failed('x')).toBeUndefined();
    b.succeeded('x');
    expect(b.failed('x')).toBeUndefined();
    expect(b.failed('x')).toBeUndefined();
    expect(b.failed('x')).toEqual({ until: 1000, delayMs: 1000, failures: 3 });
    expect(b.state('x')).toBe('open');
    expect(b.state('y')).toBe('closed');
    expect(b.tripped()).toEqual([['x', 'open']]);
  });

  it('lets a probe through after the delay; a failed probe doubles the delay up to the maximum, a good one closes it', () => {
    const { b, clock } = breakers();
    for (let i = 0; i < 3; i++) b.failed('x');
    expect(b.failed('x')).toBeUndefined(); // started before it opened: no new trip
    clock.advance(1000);
    expect(b.state('x')).toBe('half-open');
    expect(b.failed('x')?.delayMs).toBe(2000);
    clock.advance(2000);
    expect(b.failed('x')?.delayMs).toBe(4000);
    clock.advance(4000);
    expect(b.failed('x')?.delayMs).toBe(4000);
    clock.advance(4000);
    b.succeeded('x');
    expect(b.state('x')).toBe('closed');
    expect(b.failed('x')).toBeUndefined();
  });
});
