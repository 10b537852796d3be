import { usage } from './command-error.js';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A time given on the command line: an ISO 8601 time (`2025-01-31T12:00:00Z`, `2025-01-31`),
 * Unix milliseconds, or a while ago (`90s`, `15m`, `2h`, `3d`). Answers Unix milliseconds.
 */
export function parseTimeArg(text: string, flag: string, now = Date.now()): number {
  const trimmed = text.trim();
  const ago = /^(\d+(?:\.\d+)?)\s*([smhd])$/.exec(trimmed);
  if (ago) return now - Math.round(Number(ago[1]) * (UNITS[ago[2] as string] as number));
  if (/^\d{1,15}$/.test(trimmed)) return Number(trimmed);
  const parsed = /^\d{4}-\d{2}-\d{2}/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (Number.isFinite(parsed)) return parsed;
  throw usage(
    `${flag} "${text}" is not a time: give an ISO 8601 time (2025-01-31T12:00:00Z), Unix milliseconds, or a while ago (30s, 15m, 2h, 3d)`,
  );
}
