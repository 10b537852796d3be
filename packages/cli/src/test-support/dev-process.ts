/**
 * The real `portico` binary run as a developer runs it, for tests of long-running commands
 * (`portico dev`): its output gathered, lines awaited with a deadline, and the process (with
 * everything below it) ended with the test process, also when that is killed (through
 * setpriv's parent-death signal, as the workerd host does for its workers).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { findExecutable } from '../../../platform/src/hosts/die-with-parent.js';
import { type FoundDevServer, readDevServer } from '../dev-server-file.js';

export const bin = new URL('../../dist/bin.js', import.meta.url).pathname;
const _checkout = new URL('../../../../', import.meta.url).pathname;

/** Runs `portico ARGS` to its end in `cwd`, as a separate process: its exit status and output. */
export async function runCli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...args], { cwd });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Both streams as they came. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output from `from` (an offset of output()) on. */
  waitFor(pattern: RegExp, timeoutMs?: number, from?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal) once the process ends. */
  exited: Promise<number | string>;
}

export function spawnCli(args: string[], options: { cwd: string; env?: Record<string, string> }): CliProcess {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first (\`npm test\` does)`);
  const setpriv = findExecutable('setpriv');
  const command = setpriv
    ? [setpriv, '--pdeathsig', 'KILL', '--', process.execPath, bin, ...args]
    : [process.execPath, bin, ...args];
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let all = '';
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  child.stdout?.on('data', (chunk) => {
    out += chunk;
    all += chunk;
    wake();
  });
  child.stderr?.on('data', (chunk) => {
    err += chunk;
    all += chunk;
    wake();
  });
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve(code ?? signal ?? -1);
      wake();
    }),
  );
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    output: () => all,
    exited,
    waitFor(pattern, timeoutMs = 30_000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = all.slice(from).match(pattern);
          if (match) {
            done();
            resolve(match);
          } else if (ended) {
            done();
            reject(new Error(`the process ended before printing ${pattern}:\n${all}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${pattern} was not printed within ${timeoutMs} ms:\n${all}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** `portico dev` in an integration directory of its own, for one test file. */
export interface DevInDirectory {
  /** The integration's directory (`<a temporary directory>/<name>`). */
  dir: string;
  /** The running `portico dev`, once the file's beforeAll has started it. */
  dev: CliProcess;
  /** What dev-server.json says (throws with dev's output when it is missing). */
  server(): FoundDevServer;
  /** `portico ARGS` run to its end in the directory. */
  portico(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
}

/**
 * Before the file's tests: `fill` writes the integration into its directory, then `portico dev
 * --port 0` starts there and is awaited until it is ready; after them it is killed and the
 * directory removed.
 */
export function devInDirectory(name: string, fill: (dir: string) => Promise<void>): DevInDirectory {
  const root = mkdtempSync(join(tmpdir(), `portico-${name}-`));
  const dir = join(root, name);
  let started: CliProcess | undefined;
  beforeAll(async () => {
    mkdirSync(dir, { recursive: true });
    await fill(dir);
    started = spawnCli(['dev', '--port', '0'], { cwd: dir });
    await started.waitFor(/Ctrl-C stops/, 60_000);
  }, 90_000);
  afterAll(async () => {
    started?.child.kill('SIGKILL');
    await started?.exited;
    await rm(root, { recursive: true, force: true });
  });
  const dev = new Proxy({} as CliProcess, {
    get(_, key) {
      if (started === undefined) throw new Error('portico dev is used before the beforeAll that starts it');
      return started[key as keyof CliProcess];
    },
  });
  return {
    dir,
    dev,
    server() {
      const found = readDevServer(dir);
      if (!found) throw new Error(`no dev-server.json in ${dir}; portico dev printed:\n${dev.output()}`);
      return found;
    },
    portico: (...args) => runCli(args, dir),
  };
}
