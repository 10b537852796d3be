import { describe, expect, it } from 'vitest';
import { InFlight } from './in-flight.js';

/** A promise settled from outside. */
function pending() {
  let settle!: () => void;
  const promise = new Promise<void>((resolve) => {
    settle = resolve;
  });
  return { promise, settle };
}

describe('InFlight', () => {
  it('keeps work until it settles, fulfilled or rejected', async () => {
    const inFlight = new InFlight();
    const a = pending();
    const failing = Promise.reject(new Error('handled elsewhere'));
    failing.catch(() => {});
    inFlight.add(a.promise);
    inFlight.add(failing);
    expect(inFlight.size).toBe(2);
    await Promise.resolve();
    await Promise.resolve();
    expect(inFlight.size).toBe(1);
    a.settle();
    expect(await inFlight.settled()).toBe(true);
    expect(inFlight.size).toBe(0);
  });

  it('waits for new work added while it waits, up to the grace it is given', async () => {
    const inFlight = new InFlight();
    const first = pending();
    const second = pending();
    inFlight.add(first.promise);
    const settled = inFlight.settled();
    first.promise.then(() => inFlight.add(second.promise));
    first.settle();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(inFlight.size).toBe(1);
    second.settle();
    expect(await settled).toBe(true);

    const stuck = pending();
    inFlight.add(stuck.promise);
    expect(await inFlight.settled(20)).toBe(false); // gave up: the work still runs
    expect(inFlight.size).toBe(1);
    stuck.settle();
    expect(await inFlight.settled(0)).toBe(false); // no grace left to see it end
    expect(await inFlight.settled()).toBe(true);
  });

  it('counts and waits for only the work a start added', async () => {
    const inFlight = new InFlight();
    const older = pending();
    inFlight.add(older.promise);
    let ended = 0;
    const started = await inFlight.startedBy(async () => {
      for (let i = 0; i < 3; i++)
        inFlight.add(new Promise<void>((resolve) => setTimeout(resolve, 1)).then(() => void ended++));
    });
    expect(started).toBe(3);
    expect(ended).toBe(3);
    expect(inFlight.size).toBe(1);
    older.settle();
  });
});
