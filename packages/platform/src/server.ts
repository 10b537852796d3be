/** Starts the platform: settings, secrets, database and migrations, the API on a real HTTP server. */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import type { Integration } from '@portico/runtime';
import { type Logger, pino } from 'pino';
import { BUILTINS, publishBuiltins } from './builtins.js';
import { type PlatformConfig, resolveSecrets, resolveTuning, type Tuning } from './config.js';
import { DeliveryEngine } from './delivery/delivery-engine.js';
import { createEgress } from './hosts/egress.js';
import { InProcessHost } from './hosts/in-process-host.js';
import { RemoteHost } from './hosts/remote-host.js';
import { WorkerdHost } from './hosts/workerd-host.js';
import { createApp } from './http/app.js';
import type { ServiceContext } from './services/context.js';
import { Dispatcher } from './services/dispatcher.js';
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
  /** The isolation, capacity and retention settings in force. */
  tuning: Tuning;
  ctx: ServiceContext;
  dispatcher: Dispatcher;
  deliveries: DeliveryEngine;
  /** Stops taking connections, finishes requests in flight, closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /** Trusted integrations run in this process instead of workerd, by integration name. */
  inProcess?: ReadonlyMap<string, Integration>;
  /** Wall-clock limit of one dispatch (default 10 s). */
  dispatchTimeoutMs?: number;
  /** Total time of one webhook delivery attempt (default 10 s). */
  deliveryTimeoutMs?: number;
}

export async function startPlatform(config: PlatformConfig, options: StartOptions = {}): Promise<RunningPlatform> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const secrets = resolveSecrets(config);
  const tuning = resolveTuning(config);
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
    apiUrl: '',
    wake: () => {},
    wakeDeliveries: () => {},
  };
  if (database.dialect === 'sqlite') {
    // One process owns a SQLite file: claims left by a crashed run are free again at once.
    await ctx.db.updateTable('outbox').set({ claimed_until: null }).where('dispatched_at', 'is', null).execute();
    await ctx.db.updateTable('deliveries').set({ claimed_until: null }).where('status', '=', 'pending').execute();
  }
  const egress = createEgress({
    allowPrivateNetwork: config.allowPrivateNetwork,
    trustedOrigins: () => [ctx.apiUrl],
    record: async (entry) => {
      await ctx.db
        .insertInto('egress')
        .values({
          installation_id: entry.installationId,
          integration_name: entry.integration,
          method: entry.method,
          url: entry.url.slice(0, 2000),
          status: entry.status,
          refused: entry.refused,
          at: ctx.now(),
        })
        .execute();
    },
  });
  const hosts = {
    workerd: new WorkerdHost({
      egress,
      maxWorkers: tuning.maxWorkers,
      ...(options.dispatchTimeoutMs ? { timeoutMs: options.dispatchTimeoutMs } : {}),
    }),
    inProcess: new InProcessHost(
      new Map([...BUILTINS.map((b) => [b.name, b.integration] as const), ...(options.inProcess ?? [])]),
    ),
    remote: new RemoteHost(options.dispatchTimeoutMs),
  };
  await publishBuiltins(ctx);
  const dispatcher = new Dispatcher({ ctx, hosts, logger });
  const deliveries = new DeliveryEngine({
    ctx,
    allowPrivateNetwork: config.allowPrivateNetwork,
    userAgent: `Portico-Webhooks/${VERSION}`,
    logger,
    ...(options.deliveryTimeoutMs ? { timeoutMs: options.deliveryTimeoutMs } : {}),
  });
  const app: ReturnType<typeof createApp> = createApp({
    ctx,
    dispatcher,
    adminToken: secrets.adminToken,
    logger,
    version: VERSION,
  });
  const server: ServerType = await new Promise((resolveServer, reject) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolveServer(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  ctx.publicUrl = (config.publicUrl ?? url).replace(/\/+$/, '');
  ctx.apiUrl = url;
  logger.info({ url, database: database.dialect, migrationsApplied }, 'portico is listening');
  dispatcher.start();
  deliveries.start();

  let closing: Promise<void> | undefined;
  return {
    url,
    adminToken: secrets.adminToken,
    adminTokenGenerated: secrets.adminTokenGenerated,
    migrationsApplied,
    tuning,
    ctx,
    dispatcher,
    deliveries,
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
        await dispatcher.stop();
        await deliveries.stop();
        await Promise.all([hosts.workerd.close(), hosts.inProcess.close(), hosts.remote.close()]);
        await database.close();
      })();
      return closing;
    },
  };
}
