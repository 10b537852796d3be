/**
 * Published integrations run in workerd, Cloudflare's open-source Workers runtime, through
 * Miniflare: one worker (one workerd process) per integration version, loaded from the published
 * bundle, with Web-standard globals only and no access to the platform's environment, files or
 * memory. Workers cost what they are used (docs/decisions/011-worker-lifecycle.md):
 * - a worker starts on the first dispatch for its version and is stopped once it has had no
 *   dispatch in flight or queued for `idleMs`; the next dispatch starts it again (a cold start);
 * - beyond `maxWorkers`, the least recently used idle worker is stopped. A worker is never stopped
 *   in the middle of a dispatch to make room: when every worker is busy the node briefly runs
 *   more, and stops one as soon as one falls idle;
 * - workerd processes end with the process that started them, also when it is killed with SIGKILL.
 * The platform adds what workerd does not enforce locally:
 * - a wall-clock limit per dispatch: a worker that does not answer in time is stopped, and the
 *   next dispatch starts a fresh one;
 * - a memory ceiling: the worker process's resident memory is watched while it works, and a
 *   worker over the ceiling is stopped;
 * - egress: every outbound fetch goes through the platform (recorded, private addresses refused);
 * - one dispatch at a time per worker, so its outbound requests belong to one installation;
 * - its console output, captured in the worker per request and returned with the answer
 *   (`worker-entry.ts`), so every line belongs to its dispatch whatever the timing.
 */
import { readFileSync } from 'node:fs';
import type { Miniflare } from 'miniflare';
import { workersDieWithThisProcess } from './die-with-parent.js';
import {
  DEFAULT_DISPATCH_TIMEOUT_MS,
  type Host,
  HostError,
  type HostRequest,
  type HostResponse,
  type IntegrationBundle,
  wireRequest,
  withTimeout,
} from './host.js';
import { unframe } from './output.js';
import { processes } from './proc.js';
import { entrySource } from './worker-entry.js';
import { failedFetch, workerModules } from './worker-fetch.js';

export interface WorkerdHostOptions {
  /** Handles every outbound request of integration code. */
  egress(request: Request, who: { integration: string; installationId: string | null }): Promise<Response>;
  timeoutMs?: number;
  /** Resident memory a worker process may use (default 256 MiB). */
  memoryLimitBytes?: number;
  /** Live workers; beyond this the least recently used idle one is stopped (default 16). */
  maxWorkers?: number;
  /** A worker with no dispatch in flight or queued for this long is stopped (default 5 min). */
  idleMs?: number;
  startupTimeoutMs?: number;
  /**
   * Where a worker's output outside any dispatch goes (what it prints at import, or from work left
   * running after its answer), line by line. What it prints during a dispatch is captured in the
   * worker and comes back with the answer (`worker-entry.ts`).
   */
  onOutput?(line: string, worker: { name: string; version: number }): void;
  /** Called once a stopped worker's process has ended (tests and benchmarks count stops with it). */
  onStopped?(worker: StoppedWorker): void;
}

/** Why a worker was stopped. */
export type StopReason = 'idle' | 'evicted' | 'timeout' | 'memory' | 'too_large' | 'crashed' | 'startup' | 'closed';

export interface StoppedWorker {
  name: string;
  version: number;
  /** Its workerd process, which has ended (undefined if it never started). */
  pid: number | undefined;
  reason: StopReason;
}

export const DEFAULT_MEMORY_LIMIT_BYTES = 256 * 1024 * 1024;
const DEFAULT_IDLE_MS = 5 * 60 * 1000;
/** Node's longest timer (about 24.8 days); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const COMPATIBILITY_DATE = '2025-09-01';
/**
 * Node's built-in modules (`node:crypto`, `node:buffer`, …) as Workers offer them: integrations
 * built for GitBook's runtime keep those imports for the runtime (DESIGN.md). They stay inside
 * workerd: no file, process or environment of the host is reachable through them.
 */
const COMPATIBILITY_FLAGS = ['nodejs_compat'];
const MEMORY_POLL_MS = 25;

interface Worker {
  key: string;
  bundle: IntegrationBundle;
  /** Settles once workerd answers; rejects with a HostError when it did not start. */
  ready: Promise<Miniflare>;
  pid: number | undefined;
  /** Dispatches run one after another. */
  queue: Promise<unknown>;
  /** Dispatches queued or in flight: the worker is idle at 0, and only then may be stopped to save resources. */
  busy: number;
  idleTimer: NodeJS.Timeout | undefined;
  /** The dispatch in flight (egress is recorded against its installation). */
  current: { installationId: string | null } | undefined;
  /** Set when the worker is being stopped; settles once its process has ended. */
  stopping: Promise<void> | undefined;
}

export class WorkerdHost implements Host {
  readonly kind = 'workerd' as const;
  /**
   * Why workerd processes would outlive a server killed with SIGKILL on this system, and what to
   * do about it; undefined when they end with it.
   */
  readonly orphanWarning: string | undefined;
  /** Live workers, least recently used first. */
  private readonly workers = new Map<string, Worker>();
  /** Stops under way, by version: a new worker for that version starts once the old process has ended. */
  private readonly stops = new Map<string, Promise<void>>();
  private starting: Promise<unknown> = Promise.resolve();
  private readonly timeoutMs: number;
  private readonly memoryLimit: number;
  private readonly maxWorkers: number;
  private readonly idleMs: number;
  private closed = false;

  constructor(private readonly options: WorkerdHostOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_DISPATCH_TIMEOUT_MS;
    this.memoryLimit = options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES;
    this.maxWorkers = options.maxWorkers ?? 16;
    this.idleMs = Math.min(options.idleMs ?? DEFAULT_IDLE_MS, MAX_TIMER_MS);
    this.orphanWarning = workersDieWithThisProcess();
  }

  /** How many workers are live (starting, busy or idle; not the ones being stopped). */
  get size(): number {
    return this.workers.size;
  }

  /** The resident memory of every live worker's process, in bytes (metrics; what cannot be read counts 0). */
  memoryInUse(): number {
    let total = 0;
    for (const worker of this.workers.values()) if (worker.pid !== undefined) total += residentBytes(worker.pid) ?? 0;
    return total;
  }

  /** The pid of the workerd process of `bundle`'s worker, once it has started. */
  pidOf(bundle: IntegrationBundle): number | undefined {
    return this.workers.get(keyOf(bundle))?.pid;
  }

  /** The resident memory of the worker of `bundle`, in bytes, if it runs. */
  async memoryOf(bundle: IntegrationBundle): Promise<number | undefined> {
    const worker = this.workers.get(keyOf(bundle));
    await worker?.ready.catch(() => undefined);
    return worker?.pid === undefined ? undefined : residentBytes(worker.pid);
  }

  async dispatch(bundle: IntegrationBundle, request: HostRequest): Promise<HostResponse> {
    const worker = this.acquire(bundle);
    try {
      const run = worker.queue.then(() => this.run(worker, bundle, request));
      worker.queue = run.catch(() => {});
      return await run;
    } finally {
      this.release(worker);
    }
  }

  /** Stops every worker; resolves once all their processes have ended. */
  async close(): Promise<void> {
    this.closed = true;
    for (const worker of this.workers.values()) void this.stop(worker, 'closed');
    await Promise.all(this.stops.values());
  }

  /** The worker of `bundle`, started if need be, counted busy and made the most recently used. */
  private acquire(bundle: IntegrationBundle): Worker {
    const key = keyOf(bundle);
    const worker = this.workers.get(key) ?? this.start(bundle);
    this.workers.delete(key);
    this.workers.set(key, worker);
    worker.busy++;
    clearTimeout(worker.idleTimer);
    this.evict();
    return worker;
  }

  private release(worker: Worker): void {
    worker.busy--;
    if (worker.busy > 0 || worker.stopping !== undefined) return;
    worker.idleTimer = setTimeout(() => {
      if (worker.busy === 0) void this.stop(worker, 'idle');
    }, this.idleMs);
    worker.idleTimer.unref(); // an idle worker does not keep the process alive
    this.evict();
  }

  /** Beyond the cap, stops the least recently used idle workers; a busy worker is never stopped here. */
  private evict(): void {
    for (const worker of this.workers.values()) {
      if (this.workers.size <= this.maxWorkers) return;
      if (worker.busy === 0) void this.stop(worker, 'evicted');
    }
  }

  private async run(worker: Worker, bundle: IntegrationBundle, request: HostRequest): Promise<HostResponse> {
    // A startup failure answers every dispatch that waited for it.
    const miniflare = await worker.ready;
    if (worker.stopping !== undefined) {
      if (this.closed)
        throw new HostError(
          'crashed',
          `the workerd host was closed (the server is stopping) before ${bundle.name} (version ${bundle.version}) could handle the request; send it again once the server runs`,
        );
      // Stopped while this dispatch waited (the one before it timed out or crashed): a new worker takes it.
      return this.dispatch(bundle, request);
    }
    const started = performance.now();
    worker.current = { installationId: request.installationId ?? null };
    let overMemory = false;
    const watchdog = setInterval(() => {
      if (worker.pid !== undefined && (residentBytes(worker.pid) ?? 0) > this.memoryLimit) {
        overMemory = true;
        void this.stop(worker, 'memory');
      }
    }, MEMORY_POLL_MS);
    try {
      const answer = await withTimeout(
        (async () => {
          const wire = await wireRequest(request);
          const response = await miniflare.dispatchFetch('http://integration.internal/v1', {
            method: wire.method,
            headers: wire.headers,
            // The integration's answer goes back as it is: a redirect is for the browser, not for us.
            redirect: 'manual',
            ...(wire.body ? { body: wire.body as Uint8Array<ArrayBuffer> } : {}),
          });
          return unframe(response as unknown as Response);
        })(),
        this.timeoutMs,
        () => this.stop(worker, 'timeout'),
        `${bundle.name} (version ${bundle.version})`,
      );
      if (overMemory) throw memoryError(bundle, this.memoryLimit);
      return { ...answer, headers: answeredHeaders(answer.headers), durationMs: performance.now() - started };
    } catch (error) {
      if (overMemory) throw memoryError(bundle, this.memoryLimit);
      if (error instanceof HostError) {
        if (error.failure === 'too_large') await this.stop(worker, 'too_large');
        throw error;
      }
      await this.stop(worker, 'crashed');
      throw new HostError(
        'crashed',
        `the worker of ${bundle.name} (version ${bundle.version}) stopped while handling the request (${(error as Error).message}); the next request starts a new one`,
      );
    } finally {
      clearInterval(watchdog);
      worker.current = undefined;
    }
  }

  private start(bundle: IntegrationBundle): Worker {
    const key = keyOf(bundle);
    const worker: Worker = {
      key,
      bundle,
      ready: undefined as unknown as Promise<Miniflare>,
      pid: undefined,
      queue: Promise.resolve(),
      busy: 0,
      idleTimer: undefined,
      current: undefined,
      stopping: undefined,
    };
    // A stop of this version still under way (a dispatch came while it was stopped for
    // idleness, say) ends first, so one version never has two processes.
    const previous = this.stops.get(key);
    // Starts are serialized so the new workerd process can be told apart from the others.
    worker.ready = this.starting.then(() => previous).then(() => this.launch(worker));
    this.starting = worker.ready.catch(() => {});
    worker.ready.catch(() => this.stop(worker, 'startup'));
    return worker;
  }

  private async launch(worker: Worker): Promise<Miniflare> {
    const { bundle } = worker;
    // Loaded with the first worker, not with the server: it is about 19 MiB of heap (more than half
    // of a started server's) and 70 MiB of RSS that a server running no integration code never uses.
    const { Miniflare: Runtime } = await import('miniflare');
    const before = new Set(workerdChildren());
    const collect = (stream: NodeJS.ReadableStream) => {
      let partial = '';
      stream.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (line.trim() !== '') this.options.onOutput?.(line, bundle);
      });
    };
    const miniflare = new Runtime({
      // The entry wraps the integration's bundle: the fetch wrapper first, then its console captured per request.
      modules: workerModules(bundle.script, entrySource()),
      modulesRoot: '/',
      compatibilityDate: COMPATIBILITY_DATE,
      compatibilityFlags: COMPATIBILITY_FLAGS,
      outboundService: (async (request: Request) => {
        try {
          return await this.options.egress(request, {
            integration: bundle.name,
            installationId: worker.current?.installationId ?? null,
          });
        } catch (error) {
          // Rejects the integration's fetch with the reason (worker-fetch.ts), as Workers do.
          return failedFetch(`fetch ${request.method} ${request.url} failed: ${(error as Error).message}`);
        }
      }) as never,
      handleRuntimeStdio(stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) {
        collect(stdout);
        collect(stderr);
      },
    });
    try {
      await withTimeout(
        miniflare.ready,
        this.options.startupTimeoutMs ?? 30_000,
        () => miniflare.dispose(),
        'starting the worker',
      );
    } catch (error) {
      await miniflare.dispose().catch(() => {});
      throw new HostError(
        'startup',
        `the worker of ${bundle.name} (version ${bundle.version}) did not start: ${(error as Error).message}`,
      );
    }
    worker.pid = workerdChildren().find((pid) => !before.has(pid));
    return miniflare;
  }

  /** Stops a worker (once); resolves when its process has ended. */
  private stop(worker: Worker, reason: StopReason): Promise<void> {
    if (worker.stopping !== undefined) return worker.stopping;
    if (this.workers.get(worker.key) === worker) this.workers.delete(worker.key);
    clearTimeout(worker.idleTimer);
    const stopping: Promise<void> = worker.ready
      .then(
        (miniflare) => miniflare.dispose(),
        () => {}, // it did not start; nothing runs
      )
      .catch(() => {})
      .then(() => {
        if (this.stops.get(worker.key) === stopping) this.stops.delete(worker.key);
        const { name, version } = worker.bundle;
        this.options.onStopped?.({ name, version, pid: worker.pid, reason });
      });
    worker.stopping = stopping;
    this.stops.set(worker.key, stopping);
    return stopping;
  }
}

/**
 * The headers the worker answered with, for the body held here, which is never encoded. Workers
 * encode a body answered with a `content-encoding` on its way out: miniflare's client decodes it
 * again and renames the header `mf-content-encoding` (a name of its own, not passed on), and a
 * framed answer (worker-entry.ts) carries the body as the integration made it, before encoding.
 */
function answeredHeaders(headers: Iterable<[string, string]>): [string, string][] {
  return [...headers].filter(([name]) => name !== 'mf-content-encoding' && name !== 'content-encoding');
}

function keyOf(bundle: IntegrationBundle): string {
  return `${bundle.name}@${bundle.version}`;
}

function memoryError(bundle: IntegrationBundle, limit: number): HostError {
  return new HostError(
    'memory',
    `the worker of ${bundle.name} (version ${bundle.version}) used more than ${Math.round(limit / 1024 / 1024)} MiB and was stopped`,
  );
}

/** The workerd processes this process started. */
function workerdChildren(): number[] {
  return processes()
    .filter((p) => p.comm === 'workerd' && p.ppid === process.pid)
    .map((p) => p.pid);
}

function residentBytes(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}
