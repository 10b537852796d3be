import { describe, expect, it } from 'vitest';
import { Together } from './together.js';

/** A call that records its items and waits until released. */
function gatedCalls() {
  const calls: { items: number[]; release(error?: Error): void }[] = [];
  const call = (items: number[]) =>
    new Promise<number>((resolve, reject) => {
      calls.push({ items, release: (error) => (error ? reject(error) : resolve(items.length)) });
    });
  return { calls, call };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('Together', () => {
  it('runs a lone call at once, and the calls that arrive meanwhile together in the next', async () => {
    const { calls, call } = gatedCalls();
    const together = new Together(call);
    const first = together.run([1, 2]);
    await tick();
    expect(calls.map((c) => c.items)).toEqual([[1, 2]]);
    const second = together.run([3]);
    const third = together.run([4, 5]);
    await tick();
    // Still one call under way: the others wait for it.
    expect(calls).toHaveLength(1);
    calls[0]?.release();
    expect(await first).toBe(2);
    await tick();
    expect(calls.map((c) => c.items)).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
    calls[1]?.release();
    // Each caller gets the answer of the call that carried its items.
    expect(await Promise.all([second, third])).toEqual([3, 3]);
  });

  it('rejects every caller of a call that fails, and goes on with the next', async () => {
    const { calls, call } = gatedCalls();
    const together = new Together(call);
    const first = together.run([1]);
    await tick();
    const second = together.run([2]);
    const third = together.run([3]);
    calls[0]?.release();
    await first;
    await tick();
    calls[1]?.release(new Error('the disk is full'));
    await expect(second).rejects.toThrow('the disk is full');
    await expect(third).rejects.toThrow('the disk is full');
    const fourth = together.run([4]);
    await tick();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3], [4]]);
    calls[2]?.release();
    expect(await fourth).toBe(1);
  });

  it('puts at most `most` items in one call, never splitting a caller', async () => {
    const { calls, call } = gatedCalls();
    const together = new Together(call, 3);
    const first = together.run([1]);
    await tick();
    const waiting = [together.run([2, 3]), together.run([4, 5]), together.run([6, 7, 8, 9])];
    calls[0]?.release();
    await first;
    for (let i = 1; i <= 3; i++) {
      await tick();
      calls[i]?.release();
    }
    await Promise.all(waiting);
    // The third caller alone is over the cap: it goes alone, whole.
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3], [4, 5], [6, 7, 8, 9]]);
  });
});
