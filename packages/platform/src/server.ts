/** Starts the platform: settings, secrets, database and migrations, the API on a real HTTP server. */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { type Logger, pino } from 'pino';
import { type PlatformConfig, resolveSecrets } from './config.js';
import { createApp } from './http/app.js';
import type { ServiceContext } from './services/context.js';
import { SecretBox } from './services/secret-box.js';
import { openDatabase } from './storage/database.js';
import { migrate } from './storage/migrate.js';

export const VERSION = '0.1.0';

export interface RunningPlatform {
  url: string;
  adminToken: string;
  adminTokenGenerated: boolean;
  /** Migrations applied by this start (empty when the schema was already current). */
  migrationsApplied: string[];
  ctx: ServiceContext;
  /** Stops taking connections, finishes requests in flight, closes the database. */
  close(): Promise<void>;
}

export async function startPlatform(
  config: PlatformConfig,
  options: { logger?: Logger } = {},
): Promise<RunningPlatform> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const secrets = resolveSecrets(config);
  const database = openDatabase({ url: config.databaseUrl, sqliteFile: join(config.dataDir, 'portico.db') });
  let migrationsApplied: string[];
  try {
    migrationsApplied = await migrate(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  const ctx: ServiceContext = {
    db: database.db,
    dialect: database.dialect,
    box: new SecretBox(secrets.secretKey),
    now: Date.now,
    publicUrl: '',
  };
  const app = createApp({ ctx, adminToken: secrets.adminToken, logger, version: VERSION });
  const server: ServerType = await new Promise((resolveServer, reject) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolveServer(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  ctx.publicUrl = (config.publicUrl ?? url).replace(/\/+$/, '');
  logger.info({ url, database: database.dialect, migrationsApplied }, 'portico is listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    adminToken: secrets.adminToken,
    adminTokenGenerated: secrets.adminTokenGenerated,
    migrationsApplied,
    ctx,
    close() {
      closing ??= (async () => {
        await new Promise<void>((done) => {
          // Requests in flight finish; connections that fall idle are closed as they do.
          const sweep = setInterval(() => 'closeIdleConnections' in server && server.closeIdleConnections(), 50);
          server.close(() => {
            clearInterval(sweep);
            done();
          });
          if ('closeIdleConnections' in server) server.closeIdleConnections();
        });
        await database.close();
      })();
      return closing;
    },
  };
}
