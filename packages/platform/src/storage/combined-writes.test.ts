/** Writes of one kind asked together run as one statement, each with its own answer and its own fault. */
import { describe, expect, it } from 'vitest';
import { CombinedWrites } from './combined-writes.js';

/** A statement that doubles its inputs, recording what each statement took; it fails on a negative input. */
function doubling() {
  const statements: number[][] = [];
  let release: (() => void) | undefined;
  const writes = new CombinedWrites<number, number>(
    async (inputs) => {
      statements.push(inputs);
      if (release === undefined && inputs.includes(100)) await new Promise<void>((resolve) => (release = resolve));
      if (inputs.some((n) => n < 0)) throw new Error(`negative: ${inputs.filter((n) => n < 0).join(', ')}`);
      return inputs.map((n) => n * 2);
    },
    { most: 3 },
  );
  return { writes, statements, release: () => release?.() };
}

describe('combined writes', () => {
  it('runs the writes asked in one turn as one statement, each answered with its own output', async () => {
    const { writes, statements } = doubling();
    expect(await Promise.all([1, 2].map((n) => writes.run(n)))).toEqual([2, 4]);
    expect(await writes.run(5)).toBe(10);
    expect(statements).toEqual([[1, 2], [5]]);
  });

  it('holds the writes asked while a statement runs, and runs them together after it, at most `most` each', async () => {
    const { writes, statements, release } = doubling();
    const first = writes.run(100);
    await new Promise((resolve) => setImmediate(resolve));
    const later = [1, 2, 3, 4].map((n) => writes.run(n));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(statements).toEqual([[100]]);
    release();
    expect(await first).toBe(200);
    expect(await Promise.all(later)).toEqual([2, 4, 6, 8]);
    expect(statements).toEqual([[100], [1, 2, 3], [4]]);
    expect({ statements: writes.statements, writes: writes.writes }).toEqual({ statements: 3, writes: 5 });
  });

  it('runs up to `parallel` statements at once; what waits behind them goes together after the first to end', async () => {
    const statements: number[][] = [];
    const ends: (() => void)[] = [];
    const writes = new CombinedWrites<number, number>(
      async (inputs) => {
        statements.push(inputs);
        await new Promise<void>((resolve) => ends.push(resolve));
        return inputs;
      },
      { parallel: 2 },
    );
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const answers = [writes.run(1)];
    await turn();
    answers.push(writes.run(2));
    await turn();
    answers.push(writes.run(3), writes.run(4));
    await turn();
    expect(statements).toEqual([[1], [2]]);
    ends[0]?.();
    await turn();
    expect(statements).toEqual([[1], [2], [3, 4]]);
    for (const end of ends.slice(1)) end();
    expect(await Promise.all(answers)).toEqual([1, 2, 3, 4]);
  });

  it('runs each write of a failed statement again alone: only the faulty one fails, with its own error', async () => {
    const { writes, statements } = doubling();
    const answers = await Promise.allSettled([1, -2, 3].map((n) => writes.run(n)));
    expect(answers).toEqual([
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: new Error('negative: -2') },
      { status: 'fulfilled', value: 6 },
    ]);
    expect(statements).toEqual([[1, -2, 3], [1], [-2], [3]]);
  });

  it('fails every write of a statement the database did not take, at once, without running them again', async () => {
    const statements: number[][] = [];
    const writes = new CombinedWrites<number, number>(async (inputs) => {
      statements.push(inputs);
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });
    const answers = await Promise.allSettled([1, 2].map((n) => writes.run(n)));
    expect(answers.map((a) => a.status)).toEqual(['rejected', 'rejected']);
    expect(statements).toEqual([[1, 2]]);
  });
});
