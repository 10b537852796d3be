import { constants } from 'node:os';
import {
  ConfigError,
  checkAlertUrl,
  checkDeliveryPolicy,
  configFromEnv,
  createSignInCode,
  type PlatformConfig,
  parseFrameAncestors,
  parseTuningValue,
  SIGN_IN_CODE_TTL_MS,
  startPlatform,
  TUNING_SETTINGS,
} from '@portico/platform';
import { type Logger, pino } from 'pino';
import type { Io } from '../io.js';
import { GatheredLines } from '../log-lines.js';
import { StopSignals } from '../stop-signals.js';

export interface ServeOptions {
  port?: string;
  host?: string;
  dataDir?: string;
  databaseUrl?: string;
  adminToken?: string;
  publicUrl?: string;
  allowPrivateNetwork?: boolean;
  frameAncestors?: string;
  metricsToken?: string;
  alertUrl?: string;
  deliveryPolicy?: string;
  secretKey?: string;
  logLevel?: string;
  /** Stop, as on SIGTERM, once the process that started this one has ended (`npm start`). */
  exitWithParent?: boolean;
  /** Tuning flags, by their camel-cased names (`--dispatch-concurrency` → dispatchConcurrency). */
  [tuningFlag: string]: string | boolean | undefined;
}

/**
 * `portico serve`: runs the platform until SIGINT or SIGTERM, then stops taking connections,
 * finishes the requests in flight and closes the database. Flags override `PORTICO_*` settings.
 * Logs one JSON line per request on stdout.
 */
export async function serve(options: ServeOptions, io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parent = process.ppid;
  let config: PlatformConfig;
  try {
    const base = configFromEnv(env);
    config = {
      ...base,
      ...(options.port !== undefined ? { port: Number(options.port) } : {}),
      ...(options.host !== undefined ? { host: options.host } : {}),
      ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
      ...(options.databaseUrl !== undefined ? { databaseUrl: options.databaseUrl } : {}),
      ...(options.adminToken !== undefined ? { adminToken: options.adminToken } : {}),
      ...(options.publicUrl !== undefined ? { publicUrl: options.publicUrl } : {}),
      ...(options.allowPrivateNetwork ? { allowPrivateNetwork: true } : {}),
      ...(options.secretKey !== undefined ? { secretKey: options.secretKey } : {}),
      ...(options.metricsToken !== undefined ? { metricsToken: options.metricsToken } : {}),
      ...(options.alertUrl !== undefined ? { alertUrl: options.alertUrl } : {}),
      ...(options.deliveryPolicy !== undefined
        ? { deliveryPolicy: checkDeliveryPolicy(options.deliveryPolicy, '--delivery-policy') }
        : {}),
      ...(options.frameAncestors !== undefined
        ? { frameAncestors: parseFrameAncestors(options.frameAncestors, '--frame-ancestors') }
        : {}),
    };
    for (const setting of TUNING_SETTINGS) {
      const text = options[flagKey(setting.flag)];
      if (typeof text === 'string') {
        config.tuning = { ...config.tuning, [setting.key]: parseTuningValue(setting, text, setting.flag) };
      }
    }
    if (options.alertUrl !== undefined) checkAlertUrl(options.alertUrl, config.allowPrivateNetwork, '--alert-url');
    if (!Number.isInteger(config.port) || config.port < 0 || config.port > 65535) {
      throw new ConfigError(`--port must be a port number (0-65535), got "${options.port}"`);
    }
  } catch (error) {
    io.err(`portico serve: ${(error as Error).message}\n`);
    return 1;
  }
  const lines = new GatheredLines();
  const logger = pino({ level: options.logLevel ?? env.PORTICO_LOG_LEVEL ?? 'info' }, lines);
  let platform: Awaited<ReturnType<typeof startPlatform>>;
  try {
    platform = await startPlatform(config, { logger });
  } catch (error) {
    const message = error instanceof ConfigError ? error.message : `could not start: ${(error as Error).message}`;
    io.err(`portico serve: ${message}\n`);
    return 1;
  }
  // On the first start, a one-time sign-in link for the operator. The code is in the URL's
  // fragment, which browsers never send, so it stays out of every log; the dashboard exchanges it
  // for a session and removes it from the address bar.
  let dashboard = `Dashboard: ${platform.url}/\n`;
  if (platform.adminTokenGenerated) {
    try {
      const code = await createSignInCode(platform.ctx);
      dashboard =
        `Dashboard: ${platform.url}/#code=${code}\n` +
        `  (a one-time sign-in link, valid for ${SIGN_IN_CODE_TTL_MS / 60_000} minutes; afterwards sign in with the admin token)\n`;
    } catch (error) {
      logger.warn({ err: error }, 'could not make a sign-in link; sign in with the admin token');
    }
  }
  // One write, so whoever reads the banner gets every line together.
  io.err(
    `\nPortico is running at ${platform.url}\n` +
      (platform.adminTokenGenerated
        ? `Admin token (shown once; kept in ${config.dataDir}/admin-token): ${platform.adminToken}\n`
        : config.adminToken !== undefined
          ? 'Admin token: the one in PORTICO_ADMIN_TOKEN\n'
          : `Admin token: in ${config.dataDir}/admin-token\n`) +
      `${dashboard}\n`,
  );
  // Miniflare's own SIGINT/SIGTERM listeners would end the process at once: keep the signals here.
  const signals = new StopSignals((signal) => {
    logger.warn({ signal }, 'stopping now, without waiting');
    lines.close();
    process.exit(128 + constants.signals[signal]);
  });
  const orphaned = options.exitWithParent ? stopWhenOrphaned(parent, logger) : undefined;
  logger.info({ signal: await signals.received }, 'shutting down: finishing requests in flight');
  clearInterval(orphaned);
  await platform.close();
  signals.dispose();
  logger.info('stopped');
  lines.close();
  // Should anything still hold the event loop once stopped (a socket to a database that never said
  // goodbye), the process ends anyway: a stopped server must not linger.
  setTimeout(() => process.exit(0), 1000).unref();
  return 0;
}

/**
 * --exit-with-parent: once the process that started this one (`parent`) has ended, this one is
 * someone else's child; it then stops as on SIGTERM. That parent may have been killed with SIGKILL,
 * which nothing passes on, so the parent is looked at every second.
 */
function stopWhenOrphaned(parent: number, logger: Logger) {
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    logger.warn({ parent }, `the process that started portico serve (pid ${parent}) has ended: stopping`);
    process.kill(process.pid, 'SIGTERM');
  }, 1000);
  timer.unref();
  return timer;
}

/** The key commander gives a flag's value: `--dispatch-concurrency` → `dispatchConcurrency`. */
export function flagKey(flag: string): string {
  return flag.replace(/^--/, '').replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
