/**
 * workerd processes end when the process that started them ends, also when it is killed with
 * SIGKILL and no exit handler runs (docs/decisions/011-worker-lifecycle.md). Miniflare starts
 * workerd from MINIFLARE_WORKERD_PATH when it is set; it is pointed at libexec/workerd-with-parent,
 * which asks the kernel (through util-linux's setpriv) to kill workerd when its parent dies, and
 * then becomes workerd, so Miniflare still holds workerd's own process and pipes.
 */
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The same path from src/hosts and from dist/hosts. */
const WRAPPER = fileURLToPath(new URL('../../libexec/workerd-with-parent', import.meta.url));

/**
 * Has every workerd started from now on by this process end with it. Returns undefined when it
 * will, or a warning that says why not and what to do (workerd then starts as before).
 */
export function workersDieWithThisProcess(): string | undefined {
  const risk = 'workerd workers would keep running if this server were killed with SIGKILL';
  if (process.platform !== 'linux') return `${risk}: ending them with the server needs Linux`;
  const setpriv = findExecutable('setpriv');
  if (setpriv === undefined)
    return `${risk}: setpriv was not found on PATH; install util-linux (Alpine: \`apk add setpriv\`) so that they end with it`;
  for (const needed of [WRAPPER, '/bin/sh']) {
    if (!isExecutable(needed))
      return `${risk}: ${needed} is missing or not executable; reinstall @portico/platform (or make it executable) so that they end with it`;
  }
  const current = process.env.MINIFLARE_WORKERD_PATH;
  // Inherited from a parent Portico server, the variables already name the real binary.
  if (current !== WRAPPER) process.env.PORTICO_WORKERD_BINARY = current ?? bundledWorkerd();
  process.env.PORTICO_WORKERD_SETPRIV = setpriv;
  process.env.PORTICO_WORKERD_PARENT = String(process.pid);
  process.env.MINIFLARE_WORKERD_PATH = WRAPPER;
  return undefined;
}

/** The workerd binary Miniflare would run: its dependency `workerd` exports the path. */
function bundledWorkerd(): string {
  const fromMiniflare = createRequire(createRequire(import.meta.url).resolve('miniflare'));
  return (fromMiniflare('workerd') as { default: string }).default;
}

/** The first executable `name` on PATH, else in /usr/bin or /bin. */
export function findExecutable(name: string): string | undefined {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
  return [...dirs, '/usr/bin', '/bin'].map((dir) => join(dir, name)).find(isExecutable);
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
