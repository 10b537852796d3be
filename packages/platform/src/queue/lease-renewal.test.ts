/**
 * Lease renewal of waiting work on its own, with a fake clock and no database: which items are
 * renewed, what happens to items another node took, a failed renewal, and one renewal at a time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KeyedPool } from './keyed-pool.js';
import { LeaseRenewal } from './lease-renewal.js';

interface Item {
  id: string;
  lease: number;
}

const LEASE_MS = 30_000;

/** A pool whose one key has a cap of 0: everything added waits, as work behind a full host does. */
function setup(move: (items: Item[], lease: number) => Promise<Set<string | number>>) {
  const pool = new KeyedPool<Item>({
    concurrency: 10,
    turnOf: () => 'k',
    slotsOf: () => ['k'],
    capOf: () => 0,
    run: () => {
      throw new Error('nothing may start');
    },
    idOf: (item) => item.id,
  });
  const moves: string[][] = [];
  const renewal = new LeaseRenewal<Item>({
    pool,
    every: LEASE_MS / 4,
    leaseMs: LEASE_MS,
    now: () => Date.now(),
    leaseOf: (item) => item.lease,
    renewBefore: (until, now) => until - now < LEASE_MS / 2,
    move: (items, lease) => {
      moves.push(items.map((item) => item.id));
      return move(items, lease);
    },
    idOf: (item) => item.id,
    setLease: (item, lease) => {
      item.lease = lease;
    },
    what: 'items',
  });
  return { pool, renewal, moves };
}

describe('lease renewal of waiting work', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('moves only the leases that run out soon, and keeps the items that moved with their new lease', async () => {
    const now = Date.now();
    const soon = { id: 'soon', lease: now + 5_000 };
    const later = { id: 'later', lease: now + 25_000 };
    const { pool, renewal, moves } = setup(async (items) => new Set(items.map((item) => item.id)));
    pool.add([soon, later]);
    await renewal.renew();
    expect(moves).toEqual([['soon']]);
    expect(soon.lease).toBe(now + LEASE_MS);
    expect(later.lease).toBe(now + 25_000);
    expect(pool.has('soon')).toBe(true);
    expect(pool.has('later')).toBe(true);
  });

  it('drops an item whose lease another node took: that node runs it', async () => {
    const now = Date.now();
    const mine = { id: 'mine', lease: now + 1_000 };
    const taken = { id: 'taken', lease: now + 1_000 };
    const { pool, renewal } = setup(async () => new Set(['mine']));
    pool.add([mine, taken]);
    await renewal.renew();
    expect(pool.has('mine')).toBe(true);
    expect(pool.has('taken')).toBe(false);
    expect(pool.waiting).toBe(1);
  });

  it('puts everything back with its old lease when the database refuses, and tries again next time', async () => {
    const now = Date.now();
    const item = { id: 'a', lease: now + 1_000 };
    let fail = true;
    const { pool, renewal, moves } = setup(async (items) => {
      if (fail) throw new Error('database unavailable');
      return new Set(items.map((i) => i.id));
    });
    pool.add([item]);
    await renewal.renew();
    expect(pool.has('a')).toBe(true);
    expect(item.lease).toBe(now + 1_000);
    fail = false;
    await renewal.renew();
    expect(moves).toEqual([['a'], ['a']]);
    expect(item.lease).toBe(now + LEASE_MS);
  });

  it('runs one renewal at a time on its timer, and stop waits for the one under way', async () => {
    let release: (() => void) | undefined;
    const { pool, renewal, moves } = setup(
      (items) =>
        new Promise((resolve) => {
          release = () => resolve(new Set(items.map((i) => i.id)));
        }),
    );
    pool.add([{ id: 'a', lease: Date.now() + 1_000 }]);
    renewal.start();
    await vi.advanceTimersByTimeAsync(LEASE_MS / 4);
    expect(moves).toHaveLength(1);
    // Ticks while the first is under way start no second one, though another item is due.
    pool.add([{ id: 'b', lease: Date.now() + 1_000 }]);
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(moves).toHaveLength(1);
    let stopped = false;
    const stopping = renewal.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release?.();
    await stopping;
    expect(stopped).toBe(true);
    expect(pool.has('a')).toBe(true);
    // Stopped: no tick renews again.
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(moves).toEqual([['a']]);
  });
});
