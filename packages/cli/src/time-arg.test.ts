import { describe, expect, it } from 'vitest';
import { parseTimeArg } from './time-arg.js';

describe('times on the command line', () => {
  const now = Date.parse('2025-01-31T12:00:00Z');

  it('reads ISO times, Unix milliseconds and a while ago', () => {
    expect(parseTimeArg('2025-01-30T10:00:00Z', '--since', now)).toBe(Date.parse('2025-01-30T10:00:00Z'));
    expect(parseTimeArg('2025-01-30', '--since', now)).toBe(Date.parse('2025-01-30'));
    expect(parseTimeArg('1738000000000', '--since', now)).toBe(1738000000000);
    expect(parseTimeArg('90s', '--since', now)).toBe(now - 90_000);
    expect(parseTimeArg('15m', '--since', now)).toBe(now - 900_000);
    expect(parseTimeArg('1.5h', '--since', now)).toBe(now - 5_400_000);
    expect(parseTimeArg('2d', '--since', now)).toBe(now - 172_800_000);
  });

  it('refuses anything else, naming the flag', () => {
    for (const text of ['yesterday', '15 minutes', '-5m', '', 'Jan 30']) {
      expect(() => parseTimeArg(text, '--until', now)).toThrow(`--until "${text}" is not a time`);
    }
  });
});
