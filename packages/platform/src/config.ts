/**
 * The server's settings, from the environment (`PORTICO_*`) with `portico serve` flags on top,
 * and the secrets it keeps in its data directory when the environment does not give them.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type DeliveryPolicyName, deliveryPolicyProblem } from '@portico/webhooks';
import { newToken } from './access/tokens.js';
import { ConfigError } from './errors/config-error.js';
import { type TracingSettings, tracingFromEnv } from './observability/tracing.js';
import { isPostgresUrl } from './storage/database.js';

export interface PlatformConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string | undefined;
  adminToken?: string | undefined;
  /** Base URL of public endpoints (default: http://<host>:<port>). */
  publicUrl?: string | undefined;
  allowPrivateNetwork: boolean;
  /**
   * Origins whose pages may show the dashboard in a frame (CSP `frame-ancestors`), such as
   * `https://docs.example.com`; unset: no other site may frame it.
   */
  frameAncestors?: string[] | undefined;
  /** 32 bytes, base64 or hex: the key that encrypts secrets at rest. */
  secretKey?: string | undefined;
  /** Isolation, capacity and retention settings; each unset one takes its default (TUNING_DEFAULTS). */
  tuning?: Partial<Tuning> | undefined;
  /** When set, `GET /metrics` answers only `Authorization: Bearer <this>` (PORTICO_METRICS_TOKEN). */
  metricsToken?: string | undefined;
  /** OpenTelemetry traces, when on (the OTEL_* variables; observability/tracing.ts). */
  tracing?: TracingSettings | undefined;
  /** Operator alerts are POSTed here, signed (PORTICO_ALERT_URL; decision 034); unset: none are sent. */
  alertUrl?: string | undefined;
  /**
   * The delivery policy of deliveries whose installation chose none (PORTICO_DELIVERY_POLICY);
   * unset: `standard`. An installation's own `delivery_policy` wins over it.
   */
  deliveryPolicy?: DeliveryPolicyName | undefined;
}

/**
 * How much work runs at once and for how long things are kept (DESIGN.md "Isolation"). Every
 * setting has an environment variable and a `portico serve` flag (TUNING_SETTINGS).
 */
export interface Tuning {
  /** Dispatches in flight on this node. */
  dispatchConcurrency: number;
  /** Dispatches in flight per integration version, so one integration cannot take the pool. */
  dispatchPerIntegration: number;
  /** Dispatches in flight per installation. */
  dispatchPerInstallation: number;
  /** Webhook attempts in flight on this node. */
  deliveryConcurrency: number;
  /** Deliveries under way per destination (scheme, host, port): in flight or waiting for a retry. */
  deliveryPerDestination: number;
  /** Deliveries under way per endpoint (installation + URL) at most; it adapts below this to how the endpoint answers. */
  deliveryPerEndpoint: number;
  /** Deliveries under way per installation. */
  deliveryPerInstallation: number;
  /** An endpoint whose every attempt failed for this long is disabled (ms; default 5 days). */
  endpointDisableAfterMs: number;
  /** Failed attempts in a row to an endpoint after which `endpoint.failing` is alerted (default 5). */
  endpointFailingAfter: number;
  /** Events, dispatches, deliveries and their attempts older than this are pruned (ms; default 30 days). */
  retentionMs: number;
  /** A workerd worker idle this long is stopped; the next dispatch starts it again (ms; default 5 min). */
  workerIdleMs: number;
  /** Live workerd workers per node; the least recently used idle one is stopped beyond this. */
  maxWorkers: number;
  /** On SIGTERM, answer `/readyz` 503 and keep serving this long before stopping (ms; default 0: stop at once). */
  drainMs: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export const TUNING_DEFAULTS: Tuning = {
  dispatchConcurrency: 64,
  dispatchPerIntegration: 16,
  dispatchPerInstallation: 8,
  deliveryConcurrency: 64,
  deliveryPerDestination: 16,
  deliveryPerEndpoint: 8,
  deliveryPerInstallation: 16,
  endpointDisableAfterMs: 5 * DAY_MS,
  endpointFailingAfter: 5,
  retentionMs: 30 * DAY_MS,
  workerIdleMs: 5 * 60 * 1000,
  maxWorkers: 16,
  drainMs: 0,
};

/** Each tuning setting: its variable, its flag, the unit people write it in, and how that maps to the value. */
export const TUNING_SETTINGS: {
  key: keyof Tuning;
  env: string;
  flag: string;
  unit: 'count' | 'days' | 'seconds';
  description: string;
}[] = [
  {
    key: 'dispatchConcurrency',
    env: 'PORTICO_DISPATCH_CONCURRENCY',
    flag: '--dispatch-concurrency',
    unit: 'count',
    description: 'dispatches in flight on this node',
  },
  {
    key: 'dispatchPerIntegration',
    env: 'PORTICO_DISPATCH_PER_INTEGRATION',
    flag: '--dispatch-per-integration',
    unit: 'count',
    description: 'dispatches in flight per integration version',
  },
  {
    key: 'dispatchPerInstallation',
    env: 'PORTICO_DISPATCH_PER_INSTALLATION',
    flag: '--dispatch-per-installation',
    unit: 'count',
    description: 'dispatches in flight per installation',
  },
  {
    key: 'deliveryConcurrency',
    env: 'PORTICO_DELIVERY_CONCURRENCY',
    flag: '--delivery-concurrency',
    unit: 'count',
    description: 'webhook attempts in flight on this node',
  },
  {
    key: 'deliveryPerDestination',
    env: 'PORTICO_DELIVERY_PER_DESTINATION',
    flag: '--delivery-per-destination',
    unit: 'count',
    description: 'deliveries under way per destination (scheme, host, port)',
  },
  {
    key: 'deliveryPerEndpoint',
    env: 'PORTICO_DELIVERY_PER_ENDPOINT',
    flag: '--delivery-per-endpoint',
    unit: 'count',
    description: 'deliveries under way per endpoint (installation + URL), at most',
  },
  {
    key: 'deliveryPerInstallation',
    env: 'PORTICO_DELIVERY_PER_INSTALLATION',
    flag: '--delivery-per-installation',
    unit: 'count',
    description: 'deliveries under way per installation',
  },
  {
    key: 'endpointDisableAfterMs',
    env: 'PORTICO_ENDPOINT_DISABLE_AFTER_DAYS',
    flag: '--endpoint-disable-after-days',
    unit: 'days',
    description: 'disable an endpoint whose every attempt failed for this long',
  },
  {
    key: 'endpointFailingAfter',
    env: 'PORTICO_ENDPOINT_FAILING_AFTER',
    flag: '--endpoint-failing-after',
    unit: 'count',
    description: 'alert endpoint.failing after this many failed attempts in a row to an endpoint',
  },
  {
    key: 'retentionMs',
    env: 'PORTICO_RETENTION_DAYS',
    flag: '--retention-days',
    unit: 'days',
    description: 'prune events, dispatches and deliveries older than this',
  },
  {
    key: 'workerIdleMs',
    env: 'PORTICO_WORKER_IDLE_SECONDS',
    flag: '--worker-idle-seconds',
    unit: 'seconds',
    description: 'stop a workerd worker idle this long',
  },
  {
    key: 'maxWorkers',
    env: 'PORTICO_MAX_WORKERS',
    flag: '--max-workers',
    unit: 'count',
    description: 'live workerd workers per node',
  },
  {
    key: 'drainMs',
    env: 'PORTICO_DRAIN_SECONDS',
    flag: '--drain-seconds',
    unit: 'seconds',
    description: 'on SIGTERM, answer /readyz 503 and keep serving this long before stopping',
  },
];

/**
 * Reads one tuning setting as written by a person (a count, days or seconds) into its value;
 * throws a ConfigError naming the setting when it is not a positive number.
 */
export function parseTuningValue(setting: (typeof TUNING_SETTINGS)[number], text: string, source: string): number {
  const value = Number(text);
  const whole = setting.unit === 'count';
  if (text.trim() === '' || !Number.isFinite(value) || value <= 0 || (whole && !Number.isInteger(value))) {
    throw new ConfigError(
      `${source} must be a positive ${whole ? 'whole number' : `number of ${setting.unit}`} (${setting.description}), got "${text}"`,
    );
  }
  return setting.unit === 'days' ? value * DAY_MS : setting.unit === 'seconds' ? value * 1000 : value;
}

/** The settings in force: defaults, overridden by what the config gives. */
export function resolveTuning(config: Pick<PlatformConfig, 'tuning'>): Tuning {
  return { ...TUNING_DEFAULTS, ...config.tuning };
}

export { ConfigError };

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const port = env.PORTICO_PORT === undefined ? 8787 : Number(env.PORTICO_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORTICO_PORT must be a port number (0-65535), got "${env.PORTICO_PORT}"`);
  }
  return {
    port,
    host: env.PORTICO_HOST ?? '127.0.0.1',
    dataDir: resolve(env.PORTICO_DATA_DIR ?? '.portico'),
    databaseUrl: env.PORTICO_DATABASE_URL || undefined,
    adminToken: env.PORTICO_ADMIN_TOKEN || undefined,
    publicUrl: env.PORTICO_PUBLIC_URL || undefined,
    allowPrivateNetwork: env.PORTICO_ALLOW_PRIVATE_NETWORK === '1',
    frameAncestors: parseFrameAncestors(env.PORTICO_FRAME_ANCESTORS, 'PORTICO_FRAME_ANCESTORS'),
    secretKey: env.PORTICO_SECRET_KEY || undefined,
    metricsToken: env.PORTICO_METRICS_TOKEN || undefined,
    tracing: tracingFromEnv(env),
    alertUrl: env.PORTICO_ALERT_URL ? checkAlertUrl(env.PORTICO_ALERT_URL, true, 'PORTICO_ALERT_URL') : undefined,
    deliveryPolicy: env.PORTICO_DELIVERY_POLICY
      ? checkDeliveryPolicy(env.PORTICO_DELIVERY_POLICY, 'PORTICO_DELIVERY_POLICY')
      : undefined,
    tuning: Object.fromEntries(
      TUNING_SETTINGS.flatMap((setting) => {
        const text = env[setting.env];
        return text === undefined || text === '' ? [] : [[setting.key, parseTuningValue(setting, text, setting.env)]];
      }),
    ),
  };
}

/**
 * The alert URL as given, when deliveries can reach it: http(s), and http only where deliveries may
 * use it (PORTICO_ALLOW_PRIVATE_NETWORK=1). Throws a ConfigError naming `source` otherwise.
 */
/** A server-wide default delivery policy's name, checked; a ConfigError naming `source` otherwise. */
export function checkDeliveryPolicy(text: string, source: string): DeliveryPolicyName {
  const name = text.trim();
  const problem = deliveryPolicyProblem(source, name);
  if (problem !== undefined) throw new ConfigError(problem.replaceAll('`', ''));
  return name as DeliveryPolicyName;
}

export function checkAlertUrl(text: string, allowPrivateNetwork: boolean, source = 'PORTICO_ALERT_URL'): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {}
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new ConfigError(
      `${source} must be an http(s) URL such as https://ops.example.com/portico-alerts, got "${text}"`,
    );
  }
  if (url.protocol === 'http:' && !allowPrivateNetwork) {
    throw new ConfigError(
      `${source} must use https: deliveries use http only with PORTICO_ALLOW_PRIVATE_NETWORK=1, got "${text}"`,
    );
  }
  return text;
}

/** An origin a CSP source list takes: scheme and host (a leading `*.` allowed), an optional port, no path. */
const ORIGIN = /^https?:\/\/(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/i;

/**
 * The origins of `text` (separated by spaces or commas) that may frame the dashboard; undefined when
 * `text` is unset or empty. Throws a ConfigError naming `source` for anything that is not an origin.
 */
export function parseFrameAncestors(text: string | undefined, source: string): string[] | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const origins = text
    .split(/[\s,]+/)
    .filter((entry) => entry !== '')
    .map((entry) => entry.replace(/\/$/, ''));
  const wrong = origins.find((origin) => !ORIGIN.test(origin));
  if (wrong !== undefined) {
    throw new ConfigError(
      `${source} must list origins such as https://docs.example.com (scheme and host, an optional port, no path), separated by spaces; "${wrong}" is not one`,
    );
  }
  return origins;
}

export interface ResolvedSecrets {
  secretKey: Uint8Array;
  adminToken: string;
  /** True when the admin token was generated now (print it once). */
  adminTokenGenerated: boolean;
}

/**
 * The secret key and admin token: from the settings, else from files in the data directory
 * (created with mode 0600 on first start). With PostgreSQL, several nodes must share both, so
 * they must come from the settings.
 */
export function resolveSecrets(config: PlatformConfig): ResolvedSecrets {
  if (config.databaseUrl !== undefined && !isPostgresUrl(config.databaseUrl)) {
    throw new ConfigError(
      `PORTICO_DATABASE_URL must start with postgres:// (or be unset for SQLite), got "${config.databaseUrl}"`,
    );
  }
  const shared = isPostgresUrl(config.databaseUrl);
  if (shared && (config.secretKey === undefined || config.adminToken === undefined)) {
    throw new ConfigError(
      'with PostgreSQL every node must share the same secrets: set PORTICO_SECRET_KEY (32 random bytes, base64) and PORTICO_ADMIN_TOKEN',
    );
  }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const secretKey =
    config.secretKey !== undefined
      ? decodeKey(config.secretKey)
      : decodeKey(readOrCreate(join(config.dataDir, 'secret.key'), () => randomBytes(32).toString('base64')).value);
  if (config.adminToken !== undefined) return { secretKey, adminToken: config.adminToken, adminTokenGenerated: false };
  const admin = readOrCreate(join(config.dataDir, 'admin-token'), () => newToken('admin'));
  return { secretKey, adminToken: admin.value, adminTokenGenerated: admin.created };
}

function decodeKey(text: string): Uint8Array {
  const trimmed = text.trim();
  const bytes = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (bytes.length !== 32) {
    throw new ConfigError(
      'PORTICO_SECRET_KEY must be 32 bytes in base64 or hex, e.g. the output of `openssl rand -base64 32`',
    );
  }
  return bytes;
}

function readOrCreate(file: string, make: () => string): { value: string; created: boolean } {
  if (existsSync(file)) return { value: readFileSync(file, 'utf8').trim(), created: false };
  const value = make();
  writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return { value, created: true };
}
