import { describe, expect, it } from 'vitest';
import { HeldRows } from './held-rows.js';

const row = (installation_id: string, id: number) => ({ installation_id, id });

describe('held rows', () => {
  it('counts held rows and reserved places, per installation and in all', () => {
    const held = new HeldRows<ReturnType<typeof row>>();
    held.put([row('a', 1), row('a', 2), row('b', 3)]);
    held.reserve('b');
    expect([held.of('a'), held.of('b'), held.of('c'), held.total]).toEqual([2, 2, 0, 4]);
    held.unreserve('b');
    expect(held.take((r) => r.id !== 2).map((r) => r.id)).toEqual([1, 3]);
    expect([held.of('a'), held.of('b'), held.total, [...held.installations()]]).toEqual([1, 0, 1, ['a']]);
    expect(held.ids()).toEqual(new Set([2]));
  });

  it('offers rows oldest first; an installation that started one goes to the back; skip, next and stop', () => {
    const held = new HeldRows<ReturnType<typeof row>>();
    held.put([row('a', 1), row('a', 2), row('a', 3), row('b', 4), row('c', 5), row('c', 6)]);
    const offered: number[] = [];
    // a: 1 starts, 2 is skipped, 3 starts; b: waits; c: 5 starts, then nothing more this time.
    held.startWhile((r) => {
      offered.push(r.id);
      if (r.id === 2) return 'skip';
      if (r.installation_id === 'b') return 'next';
      if (r.id === 6) return 'stop';
      return 'started';
    });
    expect(offered).toEqual([1, 2, 3, 4, 5, 6]);
    expect(held.total).toBe(3);
    // b kept its place; a and c went to the back, in the order they started.
    const order: number[] = [];
    held.startWhile((r) => {
      order.push(r.id);
      return 'next';
    });
    expect(order).toEqual([4, 2, 6]);
  });
});
