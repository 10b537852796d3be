/**
 * The server's settings, from the environment (`PORTICO_*`) with `portico serve` flags on top,
 * and the secrets it keeps in its data directory when the environment does not give them.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { newToken } from './services/tokens.js';
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
  /** 32 bytes, base64 or hex: the key that encrypts secrets at rest. */
  secretKey?: string | undefined;
}

export class ConfigError extends Error {}

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
    secretKey: env.PORTICO_SECRET_KEY || undefined,
  };
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
