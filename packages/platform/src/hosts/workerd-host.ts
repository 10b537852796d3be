/**
 * Published integrations run in workerd, Cloudflare's open-source Workers runtime, through
 * Miniflare: one worker (one workerd process) per integration version, loaded from the published
 * bundle, with Web-standard globals only and no access to the platform's environment, files or
 * memory. The platform adds what workerd does not enforce locally:
 * - a wall-clock limit per dispatch: a worker that does not answer in time is stopped, and the
 *   next dispatch starts a fresh one;
 * - a memory ceiling: the worker process's resident memory is watched while it works, and a
 *   worker over the ceiling is stopped;
 * - egress: every outbound fetch goes through the platform (recorded, private addresses refused);
 * - one dispatch at a time per worker, so its logs and outbound requests belong to one installation.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Miniflare } from 'miniflare';
import {
  DEFAULT_DISPATCH_TIMEOUT_MS,
  type Host,
  HostError,
  type HostRequest,
  type HostResponse,
  type IntegrationBundle,
  readResponse,
  withTimeout,
} from './host.js';

export interface WorkerdHostOptions {
  /** Handles every outbound request of integration code. */
  egress(request: Request, who: { integration: string; installationId: string | null }): Promise<Response>;
  timeoutMs?: number;
  /** Resident memory a worker process may use (default 256 MiB). */
  memoryLimitBytes?: number;
  /** Workers kept running at once; the least recently used is stopped beyond this (default 16). */
  maxWorkers?: number;
  startupTimeoutMs?: number;
}

export const DEFAULT_MEMORY_LIMIT_BYTES = 256 * 1024 * 1024;
const COMPATIBILITY_DATE = '2025-09-01';
const MEMORY_POLL_MS = 25;

interface Worker {
  key: string;
  miniflare: Miniflare;
  pid: number | undefined;
  /** Dispatches run one after another. */
  queue: Promise<unknown>;
  current: { installationId: string | null; logs: string[] } | undefined;
  stopped: boolean;
}

export class WorkerdHost implements Host {
  readonly kind = 'workerd' as const;
  private readonly workers = new Map<string, Promise<Worker>>();
  private starting: Promise<unknown> = Promise.resolve();
  private readonly timeoutMs: number;
  private readonly memoryLimit: number;
  private readonly maxWorkers: number;

  constructor(private readonly options: WorkerdHostOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_DISPATCH_TIMEOUT_MS;
    this.memoryLimit = options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES;
    this.maxWorkers = options.maxWorkers ?? 16;
  }

  /** How many workers run now (for tests and benchmarks). */
  get size(): number {
    return this.workers.size;
  }

  /** The resident memory of the worker of `bundle`, in bytes, if it runs. */
  async memoryOf(bundle: IntegrationBundle): Promise<number | undefined> {
    const worker = await this.workers.get(keyOf(bundle))?.catch(() => undefined);
    return worker?.pid === undefined ? undefined : residentBytes(worker.pid);
  }

  async dispatch(bundle: IntegrationBundle, request: HostRequest): Promise<HostResponse> {
    const worker = await this.worker(bundle);
    const run = worker.queue.then(() => this.run(worker, bundle, request));
    worker.queue = run.catch(() => {});
    return run;
  }

  async close(): Promise<void> {
    const all = [...this.workers.keys()];
    await Promise.all(all.map((key) => this.stop(key)));
  }

  private async run(worker: Worker, bundle: IntegrationBundle, request: HostRequest): Promise<HostResponse> {
    if (worker.stopped) return this.dispatch(bundle, request);
    const started = performance.now();
    const logs: string[] = [];
    worker.current = { installationId: request.installationId ?? null, logs };
    let overMemory = false;
    const watchdog = setInterval(() => {
      if (worker.pid !== undefined && (residentBytes(worker.pid) ?? 0) > this.memoryLimit) {
        overMemory = true;
        void this.stop(worker.key);
      }
    }, MEMORY_POLL_MS);
    try {
      const answer = await withTimeout(
        (async () => {
          const response = await worker.miniflare.dispatchFetch('http://integration.internal/v1', {
            method: request.method,
            headers: request.headers,
            // The integration's answer goes back as it is: a redirect is for the browser, not for us.
            redirect: 'manual',
            ...(request.body ? { body: request.body as Uint8Array<ArrayBuffer> } : {}),
          });
          return {
            response: response as unknown as Response,
            body: await readResponse(response as unknown as Response),
          };
        })(),
        this.timeoutMs,
        () => this.stop(worker.key),
        `${bundle.name} (version ${bundle.version})`,
      );
      if (overMemory) throw memoryError(bundle, this.memoryLimit);
      return {
        status: answer.response.status,
        headers: [...answer.response.headers],
        body: answer.body,
        logs,
        durationMs: performance.now() - started,
      };
    } catch (error) {
      if (overMemory) throw memoryError(bundle, this.memoryLimit);
      if (error instanceof HostError) {
        if (error.failure === 'too_large') await this.stop(worker.key);
        throw error;
      }
      await this.stop(worker.key);
      throw new HostError(
        'crashed',
        `the worker of ${bundle.name} (version ${bundle.version}) stopped while handling the request (${(error as Error).message}); the next request starts a new one`,
      );
    } finally {
      clearInterval(watchdog);
      worker.current = undefined;
    }
  }

  private worker(bundle: IntegrationBundle): Promise<Worker> {
    const key = keyOf(bundle);
    let worker = this.workers.get(key);
    if (worker !== undefined) {
      // Most recently used last, for the eviction below.
      this.workers.delete(key);
      this.workers.set(key, worker);
      return worker;
    }
    worker = this.start(bundle);
    this.workers.set(key, worker);
    worker.catch(() => this.workers.delete(key));
    if (this.workers.size > this.maxWorkers) {
      const oldest = this.workers.keys().next().value;
      if (oldest !== undefined && oldest !== key) void this.stop(oldest);
    }
    return worker;
  }

  /** Starts one worker; starts are serialized so the new workerd process can be told apart from the others. */
  private start(bundle: IntegrationBundle): Promise<Worker> {
    const started = this.starting.then(async () => {
      const before = new Set(workerdChildren());
      const worker: Worker = {
        key: keyOf(bundle),
        miniflare: undefined as unknown as Miniflare,
        pid: undefined,
        queue: Promise.resolve(),
        current: undefined,
        stopped: false,
      };
      const collect = (stream: NodeJS.ReadableStream) => {
        let partial = '';
        stream.on('data', (chunk: Buffer) => {
          const lines = (partial + chunk.toString('utf8')).split('\n');
          partial = lines.pop() ?? '';
          for (const line of lines) if (line.trim() !== '') worker.current?.logs.push(line);
        });
      };
      worker.miniflare = new Miniflare({
        modules: true,
        script: bundle.script,
        compatibilityDate: COMPATIBILITY_DATE,
        outboundService: (request: unknown) =>
          this.options.egress(request as unknown as Request, {
            integration: bundle.name,
            installationId: worker.current?.installationId ?? null,
          }) as never,
        handleRuntimeStdio(stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) {
          collect(stdout);
          collect(stderr);
        },
      });
      try {
        await withTimeout(
          worker.miniflare.ready,
          this.options.startupTimeoutMs ?? 30_000,
          () => worker.miniflare.dispose(),
          'starting the worker',
        );
      } catch (error) {
        await worker.miniflare.dispose().catch(() => {});
        throw new HostError(
          'startup',
          `the worker of ${bundle.name} (version ${bundle.version}) did not start: ${(error as Error).message}`,
        );
      }
      worker.pid = workerdChildren().find((pid) => !before.has(pid));
      return worker;
    });
    this.starting = started.catch(() => {});
    return started;
  }

  private async stop(key: string): Promise<void> {
    const worker = this.workers.get(key);
    if (worker === undefined) return;
    this.workers.delete(key);
    const running = await worker.catch(() => undefined);
    if (running === undefined || running.stopped) return;
    running.stopped = true;
    await running.miniflare.dispose().catch(() => {});
  }
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
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (comm === 'workerd' && ppid === process.pid) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

function residentBytes(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}
