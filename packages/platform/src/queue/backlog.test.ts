/** The backlog on its own: when new work may skip the database, and how claims share the pool's room. */
import { describe, expect, it } from 'vitest';
import { Backlog } from './backlog.js';
import { KeyedPool } from './keyed-pool.js';

interface Item {
  id: number;
  key: string;
}

/** A pool that starts nothing (every cap 0), so what is added waits. */
function setup(hold = 4, keys = 2) {
  const pool = new KeyedPool<Item>({
    concurrency: 10,
    turnOf: (item) => item.key,
    slotsOf: (item) => [item.key],
    capOf: () => 0,
    run: () => {},
    idOf: (item) => item.id,
  });
  return { pool, backlog: new Backlog(pool, hold, keys) };
}
const rows = (key: string, n: number) => Array.from({ length: n }, (_, id) => ({ id, key }));

describe('the backlog', () => {
  it('lets nothing skip the database until a claim has seen all that waits there', () => {
    const { backlog } = setup();
    expect(backlog.mayTake('a')).toBe(false);
    expect(backlog.worthClaiming()).toBe(true);
    backlog.claimed({ skipped: new Set(), full: [], complete: true });
    // 'a' was marked left when it could not skip: the complete claim saw it has nothing left.
    expect(backlog.mayTake('a')).toBe(true);
    expect(backlog.worthClaiming()).toBe(false);
    backlog.lookAgain();
    expect(backlog.mayTake('b')).toBe(false);
  });

  it('keeps what was marked after a claim began to read: the claim may not have seen that work', () => {
    const { backlog } = setup();
    backlog.claimed({ skipped: new Set(), full: [], complete: true });
    // A claim looking everywhere begins to read; then a wake from elsewhere, and work of 'a' is left.
    const everywhere = backlog.readingNow();
    backlog.lookAgain();
    backlog.leftFor('a');
    backlog.claimed({ skipped: new Set(), full: [], complete: true }, everywhere);
    expect(backlog.worthClaiming()).toBe(true);
    expect(backlog.targets()).toBeUndefined(); // still looks everywhere: the wake is not answered
    backlog.claimed({ skipped: new Set(), full: [], complete: true });
    // A claim of 'a' alone begins; then more of 'a' is left: that claim does not clear it.
    backlog.leftFor('a');
    const ofA = backlog.readingNow();
    backlog.leftFor('a');
    backlog.claimedTargets(new Map([['a', 3]]), new Map([['a', 1]]), ofA);
    expect(backlog.targets()).toEqual(new Map([['a', 4]]));
    backlog.claimedTargets(new Map([['a', 3]]), new Map([['a', 1]]), backlog.readingNow());
    expect(backlog.worthClaiming()).toBe(false);
  });

  it('bounds what waits per key and on the node; a full key is left out of claims until it drains to half', () => {
    const { pool, backlog } = setup(4, 2);
    backlog.claimed({ skipped: new Set(), full: [], complete: true });
    pool.add(rows('a', 4));
    expect(backlog.mayTake('a')).toBe(false); // its hold is full: its new work waits in the database
    expect(backlog.full()).toEqual(['a']);
    expect(backlog.worthClaiming()).toBe(false);
    pool.take((item) => item.id < 3); // drained below half
    expect(backlog.full()).toEqual([]);
    expect(backlog.worthClaiming()).toBe(true);
    expect(backlog.room).toBe(8 - 1);
  });

  it('takes up to each key’s room from a claim and remembers the keys it skipped some of', () => {
    const { pool, backlog } = setup(4, 2);
    pool.add(rows('a', 3));
    const { taken, skipped } = backlog.take([...rows('a', 3), ...rows('b', 5)], (row) => row.key);
    expect(taken.map((r) => r.key)).toEqual(['a', 'b', 'b', 'b', 'b']);
    expect([...skipped].sort()).toEqual(['a', 'b']);
    backlog.claimed({ skipped, full: [], complete: true });
    expect(backlog.mayTake('b')).toBe(false);
    expect(backlog.mayTake('c')).toBe(true);
    // A complete claim that left 'b' out (full) does not forget it; one that took everything does.
    backlog.claimed({ skipped: new Set(), full: ['b'], complete: true });
    expect(backlog.mayTake('b')).toBe(false);
    backlog.claimed({ skipped: new Set(), full: [], complete: true });
    expect(backlog.mayTake('b')).toBe(true);
  });

  it('names the keys a claim may look at alone, each with its room, until it knows nothing of what waits', () => {
    const { pool, backlog } = setup(4, 2);
    expect(backlog.targets(8)).toBeUndefined(); // nothing seen yet: a claim looks at everything
    backlog.claimed({ skipped: new Set(), full: [], complete: true });
    expect(backlog.targets(8)).toEqual(new Map());
    backlog.leftFor('a');
    backlog.leftFor('b');
    pool.add(rows('a', 1));
    pool.add(rows('b', 3)); // over half full: left out until it drains
    expect(backlog.targets(8)).toEqual(new Map([['a', 3]]));
    expect(backlog.targets(0)).toBeUndefined(); // more keys than a claim looks at alone
    // 'a' gave all its room: more may wait. Then it gave less: none is left, so its new work may skip.
    backlog.claimedTargets(new Map([['a', 3]]), new Map([['a', 3]]));
    expect(backlog.mayTake('a')).toBe(false);
    backlog.claimedTargets(new Map([['a', 3]]), new Map([['a', 1]]));
    expect(backlog.mayTake('a')).toBe(true);
    expect(backlog.mayTake('b')).toBe(false);
    backlog.lookAgain();
    expect(backlog.targets(8)).toBeUndefined();
  });

  it('lets a key have more than its hold while the node holds less than half its bound: the other half stays for the others', () => {
    const { pool, backlog } = setup(4, 4); // a bound of 16: 8 for a burst, and each key its 4
    backlog.claimed({ skipped: new Set(), full: [], complete: true });
    pool.add(rows('a', 4));
    expect(backlog.mayTake('a')).toBe(true); // past its hold, into the node's first half
    pool.add(rows('a', 4));
    expect(backlog.mayTake('a')).toBe(false); // the node is half full: a burst takes no more
    expect(backlog.full()).toEqual(['a']);
    pool.add(rows('b', 4));
    expect(backlog.mayTake('b')).toBe(false); // b has its hold, and the first half is gone
    pool.add(rows('c', 4));
    expect(backlog.room).toBe(0);
    expect(backlog.mayTake('d')).toBe(false); // the bound
  });

  it('lets a claim and its targets use the node’s first half for one key', () => {
    const { pool, backlog } = setup(4, 4);
    backlog.claimed({ skipped: new Set(), full: [], complete: true });
    pool.add(rows('a', 2));
    // What it takes counts: a takes the first half (6 more), then b only its own hold.
    const { taken, skipped } = backlog.take([...rows('a', 7), ...rows('b', 5)], (row) => row.key);
    expect(taken.map((r) => r.key).join('')).toBe('aaaaaabbbb');
    expect([...skipped].sort()).toEqual(['a', 'b']);
    backlog.leftFor('a');
    expect(backlog.targets(8)).toEqual(new Map([['a', 6]]));
  });
});
