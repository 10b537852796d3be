import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GITBOOK_MANIFEST_FILE, MANIFEST_FILE } from '@portico/manifest';
import { DevSession } from '../dev/dev-session.js';
import { firstFreePort } from '../dev/free-port.js';
import { DEFAULT_DEV_PORT, DEV_DIR, readDevServer } from '../dev-server-file.js';
import type { Io } from '../io.js';
import { StopSignals } from '../stop-signals.js';

export interface DevOptions {
  port?: string;
  fresh?: boolean;
}

export { DEFAULT_DEV_PORT };

const HOST = '127.0.0.1';

/**
 * `portico dev [DIR]`: runs the integration in DIR on an embedded platform (SQLite in
 * DIR/.portico-dev) and reloads it on every change, until SIGINT (Ctrl-C), SIGTERM or SIGHUP.
 * Exit status: 0 once stopped by a signal, 1 when it could not start.
 */
export async function dev(
  dir: string | undefined,
  options: DevOptions,
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const fail = (message: string) => {
    io.err(`portico dev: ${message}\n`);
    return 1;
  };
  const target = resolve(io.cwd, dir ?? '.');
  if (!existsSync(join(target, MANIFEST_FILE)) && !existsSync(join(target, GITBOOK_MANIFEST_FILE))) {
    return fail(
      `${join(target, MANIFEST_FILE)} does not exist: run portico dev in an integration's directory (or give it as DIR); \`portico new\` creates one`,
    );
  }
  const port = options.port === undefined ? DEFAULT_DEV_PORT : Number(options.port);
  if (options.port !== undefined && (!/^\d+$/.test(options.port) || port > 65535)) {
    return fail(`--port must be a port number (0-65535), got "${options.port}"`);
  }
  let running: ReturnType<typeof readDevServer>;
  try {
    running = readDevServer(target);
  } catch (error) {
    return fail((error as Error).message);
  }
  if (running !== undefined && running.dir === target) {
    return fail(
      `portico dev already runs for ${target} (pid ${running.pid}, ${running.api}): stop it first (Ctrl-C in its terminal, or kill ${running.pid})`,
    );
  }
  if (options.fresh) {
    DevSession.forget(target);
    io.err(`portico dev: --fresh: removed ${join(target, DEV_DIR)}\n`);
  }
  let chosen: number;
  try {
    chosen = port === 0 ? 0 : await firstFreePort(HOST, port);
  } catch (error) {
    return fail((error as Error).message);
  }
  if (chosen !== port) io.err(`portico dev: port ${port} is taken; using ${chosen}\n`);

  const session = new DevSession({ dir: target, host: HOST, port: chosen, env }, io);
  // Signals that come while starting stop it as soon as it has started.
  const signals = new StopSignals((signal) => {
    // A second Ctrl-C: stop now (the workers end with this process).
    io.err(`portico dev: ${signal} again: exiting without waiting\n`);
    process.exit(130);
  });
  try {
    let started: boolean;
    try {
      started = await session.start();
    } catch (error) {
      await session.stop().catch(() => {});
      throw error;
    }
    if (started) io.err(`\nportico dev: stopping (${await signals.received})\n`);
    await session.stop();
    if (started) io.err('portico dev: stopped\n');
    return started ? 0 : 1;
  } finally {
    signals.dispose();
  }
}
