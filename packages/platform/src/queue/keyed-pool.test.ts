/**
 * The scheduler's pool on its own, with a fake clock and no server: turns across keys, caps per
 * key that may change, reservations, retries that keep their slots and never wait, and draining.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AdaptiveLimits } from './adaptive-limits.js';
import { KeyedPool } from './keyed-pool.js';

interface Item {
  id: string;
  endpoint: string;
  host: string;
}

/** A pool of items keyed by endpoint (turns) and host, recording what it started, in order. */
function poolOf(options: {
  concurrency?: number;
  perHost?: number;
  perEndpoint?: (endpoint: string) => number;
  rateOf?: (endpoint: string) => number | undefined;
}) {
  const started: Item[] = [];
  const pool = new KeyedPool<Item>({
    concurrency: options.concurrency ?? 100,
    turnOf: (item) => item.endpoint,
    slotsOf: (item) => [`e ${item.endpoint}`, `h ${item.host}`],
    capOf: (slot) => (slot.startsWith('h ') ? (options.perHost ?? 100) : (options.perEndpoint?.(slot.slice(2)) ?? 100)),
    run: (item) => started.push(item),
    idOf: (item) => item.id,
    ...(options.rateOf ? { rateOf: options.rateOf, now: () => Date.now() } : {}),
  });
  return { pool, started };
}

const items = (endpoint: string, n: number, host = 'h1') =>
  Array.from({ length: n }, (_, i) => ({ id: `${endpoint}-${i}`, endpoint, host }));

describe('the keyed pool', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('gives endpoints turns at free slots: one with many waiting does not go before the others', () => {
    const { pool, started } = poolOf({ perHost: 2 });
    pool.add(items('flood', 100));
    pool.add(items('a', 3));
    pool.add(items('b', 3));
    expect(started.map((i) => i.id)).toEqual(['flood-0', 'flood-1']);
    // Each slot that frees goes to the next endpoint in line.
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      pool.finished(started[i] as Item);
      order.push((started.at(-1) as Item).endpoint);
    }
    // (Newcomers join at the front: b, then a, before flood, which had its turns.)
    expect(order).toEqual(['b', 'a', 'flood', 'b', 'a', 'flood']);
  });

  it('starts a rate-limited endpoint no faster than its rate, bursts of one second included, and others freely', () => {
    const rates: Record<string, number | undefined> = { slow: 2 };
    const { pool, started } = poolOf({ rateOf: (endpoint) => rates[endpoint] });
    pool.add(items('slow', 7));
    pool.add(items('free', 5));
    const startedOf = (endpoint: string) => started.filter((i) => i.endpoint === endpoint).length;
    // One second's worth at once; the endpoint without a rate is not held back by it.
    expect(startedOf('slow')).toBe(2);
    expect(startedOf('free')).toBe(5);
    for (const item of [...started]) pool.finished(item);
    expect(startedOf('slow')).toBe(2);
    vi.advanceTimersByTime(499);
    expect(startedOf('slow')).toBe(2);
    vi.advanceTimersByTime(1);
    expect(startedOf('slow')).toBe(3);
    vi.advanceTimersByTime(1000);
    expect(startedOf('slow')).toBe(5);
    // A rate raised while items wait applies from the next look.
    rates.slow = 100;
    vi.advanceTimersByTime(500);
    expect(startedOf('slow')).toBe(7);
    expect(pool.waiting).toBe(0);
  });

  it('holds back a rate-limited endpoint in takeNext too, and drops its look when drained', () => {
    const { pool, started } = poolOf({ rateOf: () => 1 });
    pool.add(items('slow', 3));
    expect(started).toHaveLength(1);
    expect(pool.takeNext(started[0] as Item, () => true)).toBeUndefined();
    // The look it scheduled starts the next when the rate allows; takeNext gets no more meanwhile.
    vi.advanceTimersByTime(1000);
    expect(started.map((i) => i.id)).toEqual(['slow-0', 'slow-1']);
    expect(pool.takeNext(started[1] as Item, () => true)).toBeUndefined();
    expect(pool.drain().map((i) => i.id)).toEqual(['slow-2']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never starts more than the host cap, whatever the endpoints, nor more than the node takes', () => {
    const { pool, started } = poolOf({ perHost: 3, concurrency: 5 });
    for (let e = 0; e < 10; e++) pool.add(items(`e${e}`, 2, e < 5 ? 'h1' : 'h2'));
    expect(started.filter((i) => i.host === 'h1')).toHaveLength(3);
    expect(started).toHaveLength(5);
    expect(pool.underWayOf('h h1')).toBe(3);
    expect(pool.inFlight).toBe(5);
    expect(pool.waiting).toBe(15);
  });

  it('serves 50 endpoints of one host in turn', () => {
    const { pool, started } = poolOf({ perHost: 4 });
    for (let e = 0; e < 50; e++) pool.add(items(`e${e}`, 10));
    // e0 came first and took the host's four slots; as they free, every other endpoint gets one
    // before e0 (or any other) gets another.
    while (started.length < 150) pool.finished(started[started.length - 4] as Item);
    const endpoints = started.map((i) => i.endpoint);
    expect(endpoints.slice(0, 4)).toEqual(['e0', 'e0', 'e0', 'e0']);
    expect(new Set(endpoints.slice(4, 53)).size).toBe(49);
    expect(new Set(endpoints.slice(53, 103)).size).toBe(50);
  });

  it('reads caps each time: an endpoint whose limit shrinks starts nothing more until it is under it', () => {
    const limits = new AdaptiveLimits({ initial: 2, max: 8 });
    const { pool, started } = poolOf({ perEndpoint: (e) => limits.of(e) });
    pool.add(items('slow', 10));
    expect(started).toHaveLength(2);
    limits.failed('slow');
    pool.finished(started[0] as Item);
    expect(started).toHaveLength(2); // one under way, limit 1
    pool.finished(started[1] as Item);
    expect(started).toHaveLength(3);
    // Successes grow it back, one at a time, up to its maximum.
    for (let i = 0; i < 20; i++) limits.succeeded('slow');
    pool.finished(started[2] as Item);
    expect(started).toHaveLength(3 + 7);
    expect(limits.of('slow')).toBe(8);
  });

  it('keeps a retry’s slots while it waits, and runs it when due even with every slot taken', () => {
    const { pool, started } = poolOf({ perHost: 1, concurrency: 1 });
    pool.add(items('a', 1));
    pool.add(items('b', 1));
    const first = started[0] as Item;
    pool.retryAt(first, Date.now() + 1000, Date.now());
    // Its host slot is still taken: b waits, though the node has room.
    expect(started).toHaveLength(1);
    expect(pool.inFlight).toBe(0);
    vi.advanceTimersByTime(999);
    expect(started).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(started.map((i) => i.id)).toEqual(['a-0', 'a-0']);
    pool.finished(first);
    expect(started.map((i) => i.id)).toEqual(['a-0', 'a-0', 'b-0']);
  });

  it('forced items take their slots whatever the caps', () => {
    const { pool, started } = poolOf({ perHost: 1 });
    pool.add(items('a', 1));
    pool.force({ id: 'retry', endpoint: 'b', host: 'h1' });
    expect(started.map((i) => i.id)).toEqual(['a-0', 'retry']);
    expect(pool.underWayOf('h h1')).toBe(2);
    pool.add(items('c', 1));
    pool.finished(started[0] as Item);
    expect(started).toHaveLength(2); // still one over the cap
    pool.finished(started[1] as Item);
    expect(started.map((i) => i.id)).toEqual(['a-0', 'retry', 'c-0']);
  });

  it('counts reserved places as waiting until their item comes or does not', () => {
    const { pool } = poolOf({ perHost: 0 });
    pool.reserve('a');
    pool.reserve('a');
    expect(pool.waitingOf('a')).toBe(2);
    expect(pool.waiting).toBe(2);
    pool.unreserve('a');
    pool.add(items('a', 1));
    pool.unreserve('a');
    expect(pool.waitingOf('a')).toBe(1);
    expect(pool.waiting).toBe(1);
  });

  it('takes waiting items out, puts them back in front, and drains waiting and retrying items for a stop', () => {
    const { pool, started } = poolOf({ perHost: 1 });
    pool.add(items('a', 3));
    const [first] = started as [Item];
    const taken = pool.take((item) => item.id === 'a-2');
    expect(taken.map((i) => i.id)).toEqual(['a-2']);
    expect(pool.waiting).toBe(1);
    pool.putBack(taken);
    expect([...pool.waitingItems()].map((i) => i.id)).toEqual(['a-2', 'a-1']);
    pool.retryAt(first, Date.now() + 1000, Date.now());
    expect(pool.has('a-0') && pool.has('a-1') && pool.has('a-2')).toBe(true);
    const drained = pool.drain();
    expect(pool.has('a-0') || pool.has('a-1') || pool.has('a-2')).toBe(false);
    expect(drained.map((i) => i.id).sort()).toEqual(['a-0', 'a-1', 'a-2']);
    expect(pool.underWayOf('h h1')).toBe(0);
    expect(pool.waiting).toBe(0);
    // The retry's timer is gone with it.
    vi.advanceTimersByTime(5000);
    expect(started).toHaveLength(1);
  });

  it('hands an item the next one waiting under its key to run in its slots, while `joins` holds for it', () => {
    const { pool, started } = poolOf({ perEndpoint: () => 1 });
    pool.add([...items('a', 3), ...items('b', 1)]);
    expect(started.map((i) => i.id).sort()).toEqual(['a-0', 'b-0']);
    const first = started.find((i) => i.endpoint === 'a') as Item;
    expect(pool.takeNext(first, (next) => next.id !== 'a-1')).toBeUndefined();
    const next = pool.takeNext(first, () => true) as Item;
    expect(next.id).toBe('a-1');
    // Out of the line, but still the pool's until the item it went with is finished.
    expect([...pool.waitingItems()].map((i) => i.id)).toEqual(['a-2']);
    expect(pool.waiting).toBe(1);
    expect(pool.has('a-1')).toBe(true);
    expect(pool.underWayOf('e a')).toBe(1);
    pool.finished(first, [next]);
    expect(pool.has('a-0') || pool.has('a-1')).toBe(false);
    expect(started.map((i) => i.id).slice(2)).toEqual(['a-2']);
    expect(pool.takeNext(started[2] as Item, () => true)).toBeUndefined();
  });

  it('starts what fits when an item’s run ends inside `run` itself (re-entrant)', () => {
    const started: string[] = [];
    const pool: KeyedPool<Item> = new KeyedPool<Item>({
      concurrency: 1,
      turnOf: (item) => item.endpoint,
      slotsOf: () => [],
      capOf: () => 1,
      run: (item) => {
        started.push(item.id);
        pool.finished(item);
      },
      idOf: (item) => item.id,
    });
    pool.add(items('a', 3));
    expect(started).toEqual(['a-0', 'a-1', 'a-2']);
    expect(pool.inFlight).toBe(0);
  });
});

describe('adaptive limits', () => {
  it('start low, halve down to 1 on failures, grow by one per success up to the maximum, and are forgotten', () => {
    const limits = new AdaptiveLimits({ initial: 2, max: 4 });
    expect(limits.of('x')).toBe(2);
    limits.failed('x');
    expect(limits.of('x')).toBe(1);
    limits.failed('x');
    expect(limits.of('x')).toBe(1);
    for (let i = 0; i < 10; i++) limits.succeeded('x');
    expect(limits.of('x')).toBe(4);
    limits.failed('x');
    expect(limits.of('x')).toBe(2);
    limits.forget('x');
    expect(limits.of('x')).toBe(2);
    expect(new AdaptiveLimits({ initial: 2, max: 1 }).of('y')).toBe(1);
  });
});
