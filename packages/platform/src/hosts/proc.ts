/**
 * Processes as Linux's /proc shows them: the workerd host finds the workerd process it started,
 * and tests check that workerd processes have ended.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The session id: processes started by one shell command (and their children) share it. */
  session: number;
  /** The executable's name, at most 15 characters. */
  comm: string;
  /** R running, S sleeping, Z ended but not yet reaped by its parent, … */
  state: string;
  /** When it started, in clock ticks since boot: with the pid, it names one process even if the pid is reused. */
  startTicks: number;
}

/** One process, or undefined once it has ended and been reaped (or on a system without /proc). */
export function processInfo(pid: number): ProcessInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The name is in parentheses and may itself hold spaces or parentheses.
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return {
    pid,
    comm: stat.slice(stat.indexOf('(') + 1, close),
    state: fields[0] ?? '?',
    ppid: Number(fields[1]),
    session: Number(fields[3]),
    startTicks: Number(fields[19]),
  };
}

/** Every process this user can see. */
export function processes(): ProcessInfo[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: ProcessInfo[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const info = processInfo(Number(entry));
    if (info !== undefined) found.push(info);
  }
  return found;
}

/** Every process below these pids (their children, and theirs, …), found through /proc. */
export function descendantsOf(pids: number[]): ProcessInfo[] {
  const all = processes();
  const found: ProcessInfo[] = [];
  let parents = new Set(pids);
  while (parents.size > 0) {
    const children = all.filter((p) => parents.has(p.ppid));
    found.push(...children);
    parents = new Set(children.map((p) => p.pid));
  }
  return found;
}

/**
 * Whether the process still runs: a zombie (ended, waiting for its parent to reap it) does not,
 * nor does another process that was given the same pid after it (when `startTicks` is given).
 */
export function isRunning(pid: number, startTicks?: number): boolean {
  const info = processInfo(pid);
  if (info === undefined || info.state === 'Z' || info.state === 'X') return false;
  return startTicks === undefined || info.startTicks === startTicks;
}
