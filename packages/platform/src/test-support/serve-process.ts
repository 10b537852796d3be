/** `portico serve` as a real child process, as operators run it (needs `npm run build`). */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { findExecutable } from '../hosts/die-with-parent.js';

const bin = new URL('../../../cli/dist/bin.js', import.meta.url).pathname;

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal) once the process ends. */
  exited: Promise<number | string>;
}

export async function spawnServe(env: Record<string, string>, args: string[] = []): Promise<ServeProcess> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first (\`npm test\` does)`);
  // It ends with the test process, also when that is killed: setpriv has the kernel send it SIGTERM.
  const setpriv = findExecutable('setpriv');
  const command = [process.execPath, bin, 'serve', '--port', '0', ...args];
  if (setpriv) command.unshift(setpriv, '--pdeathsig', 'TERM', '--');
  const child = spawn(command[0] as string, command.slice(1), {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`portico serve did not start within 30 s:\n${err}\n${out}`)),
      30_000,
    );
    child.stderr?.on('data', (chunk) => {
      err += chunk;
      const found = /running at (http:\/\/\S+)/.exec(err)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`portico serve exited (${code}) before it started:\n${err}`));
    });
  });
  return { child, url, stdout: () => out, stderr: () => err, exited };
}
