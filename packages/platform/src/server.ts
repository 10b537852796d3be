/** Starts the platform: settings, secrets, database and migrations, the API on a real HTTP server. */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import type { Integration } from '@portico/runtime';
import { type Logger, pino } from 'pino';
import { SecretBox } from './access/secret-box.js';
import { OperatorAlerts } from './alerts/operator-alerts.js';
import { BUILTINS, publishBuiltins } from './builtins.js';
import { checkAlertUrl, type PlatformConfig, resolveSecrets, resolveTuning, type Tuning } from './config.js';
import { DeliveryEngine } from './delivery/delivery-engine.js';
import { adoptOlderDeliveries } from './delivery/endpoints.js';
import { adoptWebhookConfigurations } from './delivery/subscriptions.js';
import { Dispatcher } from './dispatch/dispatcher.js';
import type { Hosts } from './dispatch/integration-registry.js';
import { createEgress } from './hosts/egress.js';
import { InProcessHost } from './hosts/in-process-host.js';
import { RemoteHost } from './hosts/remote-host.js';
import { WorkerdHost } from './hosts/workerd-host.js';
import { createApp } from './http/app.js';
import { serviceBinding } from './http/service-binding.js';
import { WEBHOOK_INTEGRATION } from './installations/webhook-configuration.js';
import { RecoveryRunner } from './jobs/recoveries.js';
import { RetentionPruner } from './jobs/retention.js';
import { PlatformMetrics } from './observability/metrics.js';
import { ReadinessCheck } from './observability/readiness.js';
import { operationsRoutes } from './observability/routes.js';
import { startTracing } from './observability/start-tracing.js';
import type { TracingSettings } from './observability/tracing.js';
import { openDatabase } from './storage/database.js';
import { isStorageFull, STATEMENT_TIMEOUT_MS } from './storage/database-faults.js';
import { GroupCommit, groupCommitOptions } from './storage/group-commit.js';
import { loadMigrations, migrate } from './storage/migrate.js';
import * as deliveryQueue from './storage/repositories/delivery-queue.js';
import { recordEgress } from './storage/repositories/egress.js';
import * as outbox from './storage/repositories/outbox.js';
import { NO_DELIVERY_ENGINE, type ServiceContext } from './types.js';

export const VERSION = '0.1.0';
/** How long a stopping server waits for dispatches in flight before it ends their workers. */
const SHUTDOWN_GRACE_MS = 3000;
/**
 * How long stopping may take after the drain time. Past it (a database that does not answer holds
 * requests, engines and the pool's connections), the connections still open are closed under the
 * work that waits on them: the process stops within the drain time and 5 s whatever the database does.
 */
export const STOP_LIMIT_MS = 4000;
/** How long closing the database may take once its connections were closed under their statements. */
const FORCED_CLOSE_MS = 500;
/**
 * How long an idle keep-alive connection stays open (Node's default is 5 s). Load balancers keep
 * idle connections to their backends for 60 s (AWS ALB, GCP, nginx's upstream keepalive, by
 * default): a backend that closes first races the balancer's next request on that connection, and
 * the client gets a 502. Longer than theirs, the balancer always closes first.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/**
 * How long a request's headers may take to arrive: longer than the keep-alive time (else Node
 * could end a reused connection while it waits for the next request's headers).
 */
export const HEADERS_TIMEOUT_MS = 66_000;

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
  /** The hosts integrations run in (a test may give them to a dispatcher of its own). */
  hosts: Hosts;
  deliveries: DeliveryEngine;
  /** Deletes finished work older than `tuning.retentionMs` in the background. */
  retention: RetentionPruner;
  /** Works recover-since jobs in the background. */
  recoveries: RecoveryRunner;
  /** What `/metrics` answers, and what `/readyz` checks. */
  metrics: PlatformMetrics;
  readiness: ReadinessCheck;
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
  /** The built dashboard to serve at `/` (default: `@portico/dashboard`'s dist). */
  dashboardDir?: string;
  /**
   * Where a workerd worker's output outside any dispatch goes, line by line (default: the log, at
   * info). Output during a dispatch is captured with it, in its dispatch log.
   */
  onWorkerOutput?(line: string, worker: { name: string; version: number }): void;
  /**
   * Built-in integrations this platform does not run or publish, by name: `portico dev` leaves out
   * the one named like the integration under development (an integration written for GitBook
   * named `webhook`), so the name is the developer's there.
   */
  withoutBuiltins?: readonly string[];
  /** OpenTelemetry traces: these settings instead of the config's (undefined there: off). */
  tracing?: TracingSettings;
}

export async function startPlatform(config: PlatformConfig, options: StartOptions = {}): Promise<RunningPlatform> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const secrets = resolveSecrets(config);
  if (config.alertUrl !== undefined) checkAlertUrl(config.alertUrl, config.allowPrivateNetwork);
  const tuning = resolveTuning(config);
  const database = openDatabase({
    url: config.databaseUrl,
    sqliteFile: join(config.dataDir, 'portico.db'),
    onIdleConnectionError: (error) =>
      logger.warn({ err: error }, 'an idle database connection failed; the pool opens a new one when needed'),
    onCheckpointerFailure: (error) =>
      logger.warn({ err: error }, 'the checkpoint thread failed; commits checkpoint the database log themselves now'),
  });
  let migrationsApplied: string[];
  try {
    migrationsApplied = await migrate(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  const metrics = new PlatformMetrics();
  // Off unless configured: then nothing of OpenTelemetry is loaded, and no span is made.
  const tracing = await startTracing(options.tracing ?? config.tracing, secrets.secretKey, {
    version: VERSION,
    logger,
  });
  // From now on a statement that gets no answer in time fails, and so does its request, with 503
  // (migrations, above, may take longer).
  database.limitStatements(STATEMENT_TIMEOUT_MS);
  /** When a write last found the disk full (readiness answers 503 storage_full for a while after). */
  let storageFullAt: number | undefined;
  const writes = new GroupCommit(database.db, {
    ...groupCommitOptions(database.dialect),
    engineDb: database.engineDb,
    onBatch: (size) => metrics.batchCommitted(size),
    beforeWrites: database.beforeWrites,
    onFailure: (error) => {
      if (isStorageFull(error)) storageFullAt = performance.now();
    },
  });
  const ctx: ServiceContext = {
    db: database.db,
    dialect: database.dialect,
    write: (work, options) => writes.run(work, options),
    durability: database.durability,
    box: new SecretBox(secrets.secretKey),
    now: Date.now,
    publicUrl: '',
    apiUrl: '',
    allowPrivateNetwork: config.allowPrivateNetwork,
    wake: () => {},
    routeOnIngest: async () => undefined,
    deliveries: NO_DELIVERY_ENGINE,
    metrics,
    tracing,
    defaultDeliveryPolicy: config.deliveryPolicy,
  };
  if (database.dialect === 'sqlite') {
    // One process owns a SQLite file: claims left by a crashed run are free again at once.
    await outbox.freeAllClaims(ctx.db);
    await deliveryQueue.freeAllClaims(ctx.db);
  }
  const egress = createEgress({
    allowPrivateNetwork: config.allowPrivateNetwork,
    // The API, also at the public URL: GitBook-dialect integrations reach it there (`/compat/gitbook`).
    trustedOrigins: () => [ctx.apiUrl, ...(ctx.publicUrl ? [new URL(ctx.publicUrl).origin] : [])],
    record: async (entry) => {
      await recordEgress(ctx.db, {
        installation_id: entry.installationId,
        integration_name: entry.integration,
        method: entry.method,
        url: entry.url.slice(0, 2000),
        status: entry.status,
        refused: entry.refused,
        at: ctx.now(),
      });
    },
  });
  // What in-process integrations call the API through (the app is made below, once the engines are).
  const binding = { ctx, adminToken: secrets.adminToken, app: { fetch: (request: Request) => app.fetch(request) } };
  const builtins = BUILTINS.filter((builtin) => !(options.withoutBuiltins ?? []).includes(builtin.name));
  const hosts = {
    workerd: new WorkerdHost({
      egress,
      maxWorkers: tuning.maxWorkers,
      idleMs: tuning.workerIdleMs,
      ...(options.dispatchTimeoutMs ? { timeoutMs: options.dispatchTimeoutMs } : {}),
      onOutput:
        options.onWorkerOutput ??
        ((line, worker) =>
          logger.info({ integration: worker.name, version: worker.version }, `output outside a dispatch: ${line}`)),
      onStopped: (worker) => metrics.workerStopped(worker.reason),
    }),
    inProcess: new InProcessHost(
      new Map([...builtins.map((b) => [b.name, b.integration] as const), ...(options.inProcess ?? [])]),
      // Trusted integrations reach the API in this process (a Workers-style service binding): no
      // socket, and dispatches still finishing during shutdown can still call it.
      () => ({ PORTICO_API: serviceBinding(binding) }),
    ),
    remote: new RemoteHost(options.dispatchTimeoutMs),
  };
  if (hosts.workerd.orphanWarning) logger.warn(hosts.workerd.orphanWarning);
  await publishBuiltins(ctx, builtins);
  // Alerts to PORTICO_ALERT_URL when set, and to organizations' alert URLs: deliveries of the engine made below (decisions 034, 036).
  const alerts = await OperatorAlerts.start({
    ctx,
    url: config.alertUrl,
    logger,
    failingAfter: tuning.endpointFailingAfter,
  });
  ctx.alerts = alerts;
  const dispatcher = new Dispatcher({
    ctx,
    hosts,
    logger,
    concurrency: tuning.dispatchConcurrency,
    perIntegration: tuning.dispatchPerIntegration,
    perInstallation: tuning.dispatchPerInstallation,
    // An event dispatch's calls through the binding act with its grant: no token lookup per call.
    bindingsFor: (grant) => ({ PORTICO_API: serviceBinding(binding, grant) }),
    metrics,
    tracing,
  });
  // Ingest routes events through this node's dispatcher (it takes them once it runs).
  ctx.wake = dispatcher.intake.wake;
  ctx.routeOnIngest = dispatcher.intake.route;
  const deliveries = new DeliveryEngine({
    ctx,
    allowPrivateNetwork: config.allowPrivateNetwork,
    userAgent: `Portico-Webhooks/${VERSION}`,
    logger,
    concurrency: tuning.deliveryConcurrency,
    perDestination: tuning.deliveryPerDestination,
    perEndpoint: tuning.deliveryPerEndpoint,
    perInstallation: tuning.deliveryPerInstallation,
    disableAfterMs: tuning.endpointDisableAfterMs,
    metrics,
    tracing,
    sendTraceparent: (options.tracing ?? config.tracing)?.sendTraceparent === true,
    ...(options.deliveryTimeoutMs ? { timeoutMs: options.deliveryTimeoutMs } : {}),
  });
  // Deliveries asked for on this node go to its engine (it takes them once it runs).
  ctx.deliveries = deliveries.intake;
  await adoptOlderDeliveries(ctx);
  await adoptWebhookConfigurations(ctx, WEBHOOK_INTEGRATION);
  const recoveries = new RecoveryRunner({ ctx, logger });
  metrics.watch({
    db: ctx.db,
    deliveriesHeld: () => deliveries.held,
    workers: () => ({ live: hosts.workerd.size, memoryBytes: hosts.workerd.memoryInUse() }),
    pool: () => database.poolUse?.(),
    logger,
  });
  const readiness = new ReadinessCheck({
    db: ctx.db,
    migrations: loadMigrations(database.dialect),
    engines: [
      { name: 'the dispatcher', isRunning: () => dispatcher.isRunning },
      { name: 'the delivery engine', isRunning: () => deliveries.isRunning },
    ],
    storageFullAt: () => storageFullAt,
  });
  // Aborted when the server stops: open event streams end (else closing would wait for them).
  const stopping = new AbortController();
  const app: ReturnType<typeof createApp> = createApp({
    ctx,
    dispatcher,
    adminToken: secrets.adminToken,
    logger,
    version: VERSION,
    dashboardDir: options.dashboardDir,
    closing: stopping.signal,
    recoveries,
    frameAncestors: config.frameAncestors,
    operations: operationsRoutes({ readiness, metrics, metricsToken: config.metricsToken }),
  });
  const server: ServerType = await new Promise((resolveServer, reject) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolveServer(s));
    s.once('error', reject);
  });
  if ('keepAliveTimeout' in server) {
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    server.headersTimeout = HEADERS_TIMEOUT_MS;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  ctx.publicUrl = (config.publicUrl ?? url).replace(/\/+$/, '');
  ctx.apiUrl = url;
  logger.info({ url, database: database.dialect, migrationsApplied }, 'portico is listening');
  dispatcher.start();
  const retention = new RetentionPruner({ ctx, retentionMs: tuning.retentionMs, logger });
  retention.start();
  deliveries.start();
  recoveries.start();

  let closing: Promise<void> | undefined;
  return {
    url,
    adminToken: secrets.adminToken,
    adminTokenGenerated: secrets.adminTokenGenerated,
    migrationsApplied,
    tuning,
    ctx,
    dispatcher,
    hosts,
    deliveries,
    retention,
    recoveries,
    metrics,
    readiness,
    close() {
      closing ??= (async () => {
        // Not ready from now on; with a drain time, requests are still served meanwhile.
        readiness.drain();
        if (tuning.drainMs > 0) await new Promise((resolve) => setTimeout(resolve, tuning.drainMs));
        // Past the limit, what still waits (on a database that does not answer) is cut short.
        const deadline = performance.now() + STOP_LIMIT_MS;
        let limit: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => {
          limit = setTimeout(() => resolve('late'), STOP_LIMIT_MS);
        });
        const stopped = stopParts().then(() => 'stopped' as const);
        const outcome = await Promise.race([stopped, late]);
        clearTimeout(limit);
        if (outcome === 'late') {
          logger.warn(
            `stopping took more than ${STOP_LIMIT_MS / 1000} s (the database does not answer?): closing the connections still open under the work that waits on them`,
          );
          if ('closeAllConnections' in server) server.closeAllConnections();
          // The work still waiting fails as its connections close; its rows are taken up again later.
          stopped.catch(() => {});
        }
        const forceAfterMs = Math.max(0, deadline - performance.now());
        const closed = database.close(forceAfterMs);
        if (database.dialect === 'sqlite') await closed;
        else {
          // PostgreSQL: a connection the pool ends politely waits for the server's goodbye, which a
          // hanging server never sends; forced past the deadline, and not waited for after that.
          let forced: NodeJS.Timeout | undefined;
          await Promise.race([
            closed,
            new Promise<void>((resolve) => {
              forced = setTimeout(resolve, forceAfterMs + FORCED_CLOSE_MS);
            }),
          ]).catch((error) => logger.warn({ err: error }, 'could not close the database cleanly'));
          clearTimeout(forced);
        }
      })();
      return closing;
    },
  };

  /** Everything but the database, in order: requests, dispatches, engines, hosts, traces, writes. */
  async function stopParts(): Promise<void> {
    stopping.abort();
    await new Promise<void>((done) => {
      // Requests in flight finish; connections that fall idle are closed as they do.
      const sweep = setInterval(() => 'closeIdleConnections' in server && server.closeIdleConnections(), 50);
      server.close(() => {
        clearInterval(sweep);
        done();
      });
      if ('closeIdleConnections' in server) server.closeIdleConnections();
    });
    // Dispatches in flight get a grace period; those still waiting after it (behind a worker
    // that does not answer) end when the hosts close, and their rows go out again later.
    await dispatcher.stop(SHUTDOWN_GRACE_MS);
    await recoveries.stop();
    await deliveries.stop();
    await alerts?.drain();
    await retention.stop();
    await Promise.all([hosts.workerd.close(), hosts.inProcess.close(), hosts.remote.close()]);
    await dispatcher.stop();
    // The spans of the work that ended are sent before the server is gone.
    await tracing?.close().catch((error) => logger.warn({ err: error }, 'could not send the last traces'));
    await writes.drain();
  }
}
