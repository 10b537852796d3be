import { usage } from './command-error.js';

/** How long `--wait` waits by default, in seconds. */
export const DEFAULT_WAIT_SECONDS = 30;

/** A positive number of seconds (`--timeout 30`, `--timeout 2.5`), or a usage error naming the flag. */
export function parseSeconds(text: string, flag: string): number {
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(value > 0) || value > 86_400) {
    throw usage(`${flag} must be a number of seconds above 0 (at most 86400), got "${text}"`);
  }
  return value;
}

/** A whole number in [min, max], or a usage error naming the flag. */
export function parseCount(text: string, flag: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < min || value > max) {
    throw usage(`${flag} must be a whole number from ${min} to ${max}, got "${text}"`);
  }
  return value;
}
