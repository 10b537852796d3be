/**
 * How the other commands find a running `portico dev`: while it runs, it keeps
 * `DIR/.portico-dev/dev-server.json` with its API address, where its admin token is, its pid,
 * the seeded space and site and the integration's installations (in the organization, and in
 * that space and site where its target allows); it removes the file when it stops.
 * `emit`, `tail` and the rest read it with `readDevServer` and need no `--api`/`--token`.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { DevTarget } from './dev-target.js';

/** Where `portico dev` keeps its data, relative to the integration's directory. */
export const DEV_DIR = '.portico-dev';
export const DEV_SERVER_FILE = 'dev-server.json';
/** The port `portico dev` asks for first (the next free one when it is taken). */
export const DEFAULT_DEV_PORT = 8787;

export interface DevServer {
  /** The dev platform's API, e.g. http://127.0.0.1:8787. */
  api: string;
  /** The file holding the admin token (absolute). */
  adminTokenFile: string;
  /** The `portico dev` process. */
  pid: number;
  /** The integration being developed (its manifest `name`) and its organization (beyond the agreed shape). */
  integration?: string;
  organization?: string;
  /** Where its GitBook-dialect manifest lets it be installed (absent for a Portico integration: anywhere). */
  target?: DevTarget;
  /** The seeded space and site; the integration is installed in those its target allows. */
  space: string;
  site: string;
  /** Its installations: `space` and `site` are absent where its target leaves them out. */
  installations: { organization: string; space?: string; site?: string };
}

export interface FoundDevServer extends DevServer {
  /** The file it was read from. */
  file: string;
  /** The integration's directory (the one holding `.portico-dev`). */
  dir: string;
  /** Reads the admin token from `adminTokenFile`. */
  adminToken(): string;
}

/**
 * The `portico dev` running for `dir` or the nearest directory above it, or undefined when none
 * runs (no file, or one left behind by a process that has ended). Throws when the file exists but
 * cannot be read as one `portico dev` wrote.
 */
export function readDevServer(dir: string): FoundDevServer | undefined {
  let current = resolve(dir);
  for (;;) {
    const file = join(current, DEV_DIR, DEV_SERVER_FILE);
    const found = readFile(file);
    if (found !== undefined && isRunning(found.pid)) {
      return {
        ...found,
        file,
        dir: current,
        adminToken: () => readFileSync(found.adminTokenFile, 'utf8').trim(),
      };
    }
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/** Writes the file for `dir` (atomically: readers never see half of it). */
export function writeDevServer(dir: string, server: DevServer): string {
  const file = join(resolve(dir), DEV_DIR, DEV_SERVER_FILE);
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(server, null, 2)}\n`, { mode: 0o600 });
  renameSync(partial, file);
  return file;
}

/** Removes the file for `dir` if this process wrote it. */
export function removeDevServer(dir: string, pid = process.pid): void {
  const file = join(resolve(dir), DEV_DIR, DEV_SERVER_FILE);
  if (readFile(file)?.pid === pid) rmSync(file, { force: true });
}

function readFile(file: string): DevServer | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}); delete it and start portico dev again`);
  }
  if (!isDevServer(value)) {
    throw new Error(`${file} was not written by this version of portico dev; delete it and start portico dev again`);
  }
  return value;
}

function isDevServer(value: unknown): value is DevServer {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  const installations = v.installations as Record<string, unknown> | undefined;
  return (
    typeof v.api === 'string' &&
    typeof v.adminTokenFile === 'string' &&
    Number.isInteger(v.pid) &&
    typeof v.space === 'string' &&
    typeof v.site === 'string' &&
    typeof installations === 'object' &&
    installations !== null &&
    typeof installations.organization === 'string' &&
    ['space', 'site'].every((k) => installations[k] === undefined || typeof installations[k] === 'string')
  );
}

/** Whether a process with this pid runs (signal 0 checks without sending anything). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
