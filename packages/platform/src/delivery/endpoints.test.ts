/**
 * Which attempts write their endpoint's health (decision 013, decision 064): every failure; a
 * success unless one that ended within 5 s was written, committed, and no failure this node saw
 * ended after it.
 */
import { describe, expect, it } from 'vitest';
import { attemptEnded, successWritten } from './endpoints.js';

let n = 0;
/** An endpoint id no other test uses (what this node knows is per endpoint, for the process). */
const endpoint = () => `ep_health_${n++}`;

describe('an attempt’s health write', () => {
  it('is made for every failure, for no attempt without an endpoint, and for a success nothing is known of', () => {
    const id = endpoint();
    expect(attemptEnded(null, true, 1000)).toBe(false);
    expect(attemptEnded(null, false, 1000)).toBe(false);
    expect(attemptEnded(id, true, 1000)).toBe(true);
    successWritten(id, 1000);
    expect(attemptEnded(id, false, 1100)).toBe(true);
    expect(attemptEnded(id, false, 1200)).toBe(true);
  });

  it('is skipped for successes within 5 s of a written one, and made again after', () => {
    const id = endpoint();
    successWritten(id, 1000);
    expect(attemptEnded(id, true, 1001)).toBe(false);
    expect(attemptEnded(id, true, 5999)).toBe(false);
    expect(attemptEnded(id, true, 6000)).toBe(true);
  });

  it('counts a success as written only once its write committed: one still under way skips nothing', () => {
    const id = endpoint();
    expect(attemptEnded(id, true, 1000)).toBe(true);
    // (Its write is under way, or was rolled back to run again: not told yet.)
    expect(attemptEnded(id, true, 1010)).toBe(true);
    successWritten(id, 1010);
    successWritten(id, 1000);
    expect(attemptEnded(id, true, 1020)).toBe(false);
  });

  it('is made for the first success after a failure, seen as soon as it ended, before its write committed', () => {
    const id = endpoint();
    successWritten(id, 1000);
    expect(attemptEnded(id, false, 1100)).toBe(true);
    expect(attemptEnded(id, true, 1200)).toBe(true);
    // A success that ended before that failure, written after it: still the failure is newer.
    successWritten(id, 1050);
    expect(attemptEnded(id, true, 1300)).toBe(true);
    successWritten(id, 1200);
    expect(attemptEnded(id, true, 1400)).toBe(false);
    // A failure seen at the same moment as the written success: the success counts (as the row's update does).
    expect(attemptEnded(id, false, 1200)).toBe(true);
    expect(attemptEnded(id, true, 1500)).toBe(false);
  });
});
