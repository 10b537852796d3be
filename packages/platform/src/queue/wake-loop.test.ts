import { describe, expect, it } from 'vitest';
import { WakeLoop } from './wake-loop.js';

describe('the wake loop', () => {
  it('runs again for a wake that arrives while it finishes a run, without waiting for its sleep', async () => {
    let runs = 0;
    let wakeDuringDelay = true;
    const loop: WakeLoop = new WakeLoop(
      async () => {
        runs++;
      },
      async () => {
        // A wake arrives after the last run, while the sleep is being decided.
        if (wakeDuringDelay) {
          wakeDuringDelay = false;
          loop.wake();
        }
        return 60_000;
      },
      (error) => {
        throw error;
      },
    );
    loop.start();
    for (let i = 0; i < 100 && runs < 2; i++) await new Promise((r) => setTimeout(r, 5));
    await loop.stop();
    expect(runs).toBe(2);
  });

  it('never runs twice at once, and a wake during a run runs it once more', async () => {
    let active = 0;
    let most = 0;
    let runs = 0;
    let release: () => void = () => {};
    const loop = new WakeLoop(
      async () => {
        runs++;
        active++;
        most = Math.max(most, active);
        if (runs === 1) await new Promise<void>((r) => (release = r));
        active--;
      },
      () => 60_000,
      (error) => {
        throw error;
      },
    );
    loop.start();
    loop.wake();
    loop.wake();
    release();
    for (let i = 0; i < 100 && runs < 2; i++) await new Promise((r) => setTimeout(r, 5));
    await loop.stop();
    expect({ runs, most }).toEqual({ runs: 2, most: 1 });
  });
});
