/**
 * Readiness (`GET /readyz`): whether this node should be sent traffic. It is ready when it is not
 * draining (stopping on SIGTERM), its engines (the dispatcher and the delivery engine) run, and
 * its database answers within a timeout with every migration this version knows applied. Liveness
 * stays `/healthz`, which asks nothing of the database: a database outage makes a node unready,
 * not dead.
 */
import type { Kysely } from 'kysely';
import { appliedMigrationIds } from '../storage/applied-migrations.js';
import type { Database } from '../storage/schema.js';

export type Readiness =
  | { ready: true }
  | {
      ready: false;
      code: 'draining' | 'engine_stopped' | 'database_unavailable' | 'migrations_pending' | 'storage_full';
      message: string;
    };

export interface ReadinessParts {
  db: Kysely<Database>;
  /** Migrations this version ships (`loadMigrations`), which must all be applied. */
  migrations: readonly { id: number; name: string }[];
  /** The engines that must run, named as the reason tells an operator. */
  engines: readonly { name: string; isRunning(): boolean }[];
  /** How long the database may take to answer (default 2 s). */
  timeoutMs?: number;
  /** When a write last failed because the disk was full (`performance.now()`), if ever. */
  storageFullAt?: () => number | undefined;
}

/** How long after a write found the disk full the node answers not ready (then it tries writes again). */
export const STORAGE_FULL_UNREADY_MS = 30_000;

export class ReadinessCheck {
  private draining = false;

  constructor(private readonly parts: ReadinessParts) {}

  /** From now on the node answers not ready (it is stopping; its load balancer should stop sending to it). */
  drain(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  async check(): Promise<Readiness> {
    if (this.draining) {
      return {
        ready: false,
        code: 'draining',
        message: 'the server is stopping (draining): send requests to another node',
      };
    }
    const stopped = this.parts.engines.filter((engine) => !engine.isRunning()).map((engine) => engine.name);
    if (stopped.length > 0) {
      return {
        ready: false,
        code: 'engine_stopped',
        message: `not running: ${stopped.join(', ')}; events would be stored but not worked on this node`,
      };
    }
    const fullAt = this.parts.storageFullAt?.();
    if (fullAt !== undefined && performance.now() - fullAt < STORAGE_FULL_UNREADY_MS) {
      return {
        ready: false,
        code: 'storage_full',
        message: `the disk that holds the database is full: writes are answered 507 storage_full. Free space; the node answers ready ${STORAGE_FULL_UNREADY_MS / 1000} s after the last write that found it full`,
      };
    }
    const timeoutMs = this.parts.timeoutMs ?? 2000;
    let applied: Set<number>;
    let timer: NodeJS.Timeout | undefined;
    try {
      applied = await Promise.race([
        appliedMigrationIds(this.parts.db),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
        }),
      ]);
    } catch (error) {
      return {
        ready: false,
        code: 'database_unavailable',
        message: `the database does not answer: ${(error as Error).message}`,
      };
    } finally {
      clearTimeout(timer);
    }
    const missing = this.parts.migrations.filter((migration) => !applied.has(migration.id));
    if (missing.length > 0) {
      return {
        ready: false,
        code: 'migrations_pending',
        message: `migrations not applied: ${missing.map((m) => m.name).join(', ')}; restart a node to apply them`,
      };
    }
    return { ready: true };
  }
}
