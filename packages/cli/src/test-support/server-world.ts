/**
 * A real platform on 127.0.0.1 for the tests of the commands that talk to a server (SQLite in a
 * temporary directory outside the repository, or one of the platform tests' back ends; deliveries
 * to loopback allowed unless told otherwise), with the operator's
 * organization `acme`, its space `docs` and site `site`, and a member `ada`; and the CLI run as a
 * user runs it, in this process, with its output gathered.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningPlatform, startPlatform } from '@portico/platform';
import { afterAll, beforeAll } from 'vitest';
// The reference receiver of examples/webhook-receiver (on @portico/webhooks).
import { createReceiverServer } from '../../../../examples/webhook-receiver/src/receiver.js';
import type { Backend } from '../../../platform/src/test-support/backends.js';
import { run } from '../program.js';
import { memoryIo } from './memory-io.js';

export interface ServerWorld {
  platform: RunningPlatform;
  url: string;
  adminToken: string;
  adaToken: string;
  /** Calls the API with a token (default: the admin's); answers the parsed body, throws on a refusal. */
  api<T = any>(method: string, path: string, body?: unknown, token?: string): Promise<T>;
}

/** Where the world's platform keeps its data, and whether it may deliver to loopback. */
export interface ServerWorldOptions {
  /** One of the platform tests' back ends (SQLite or PostgreSQL); default: SQLite in a temporary directory. */
  backend?: Backend;
  /** Default: true (the receivers of these tests listen on 127.0.0.1). */
  allowPrivateNetwork?: boolean;
}

/** A world for one test file (or describe block): started before its tests, closed after them. */
export function serverWorld(options: ServerWorldOptions = {}): ServerWorld {
  let world: (ServerWorld & { close(): Promise<void> }) | undefined;
  beforeAll(async () => {
    world = await startServerWorld(options);
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });
  return new Proxy({} as ServerWorld, {
    get(_, key) {
      if (world === undefined) throw new Error('the server world is used before its beforeAll started it');
      return world[key as keyof ServerWorld];
    },
  });
}

export async function startServerWorld(
  options: ServerWorldOptions = {},
): Promise<ServerWorld & { close(): Promise<void> }> {
  const store = options.backend
    ? await options.backend.fresh()
    : await mkdtemp(join(tmpdir(), 'portico-cli-server-')).then((dataDir) => ({
        config: { port: 0, host: '127.0.0.1', dataDir },
        cleanup: () => rm(dataDir, { recursive: true, force: true }),
      }));
  const platform = await startPlatform(
    { ...store.config, allowPrivateNetwork: options.allowPrivateNetwork ?? true },
    { deliveryTimeoutMs: 2000 },
  ).catch(async (error) => {
    await store.cleanup();
    throw error;
  });
  const api = async <T>(method: string, path: string, body?: unknown, token = platform.adminToken): Promise<T> => {
    const response = await fetch(`${platform.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  await api('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
  await api('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' });
  await api('POST', '/v1/orgs/acme/sites', { id: 'site', title: 'Site' });
  const { token: adaToken } = await api<{ token: string }>('POST', '/v1/users', { id: 'ada', name: 'Ada' });
  await api('PUT', '/v1/orgs/acme/members/ada', { role: 'admin' });
  return {
    platform,
    url: platform.url,
    adminToken: platform.adminToken,
    adaToken,
    api,
    async close() {
      await platform.close();
      await store.cleanup();
    },
  };
}

/** The directory of one of the GitBook-dialect fixtures written for these tests (`gitbook/<name>`). */
export const gitbookFixture = (name: string) => new URL(`./gitbook/${name}`, import.meta.url).pathname;

/** Runs `portico ARGS` in this process, in `cwd`; answers its exit code and output. */
export async function portico(args: string[], cwd = tmpdir()) {
  const io = memoryIo(cwd);
  const code = await run(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/**
 * The reference webhook receiver on 127.0.0.1, verifying with the secrets it is given (changeable:
 * a wrong one makes it answer 401, which fails a delivery at once), and the events it accepted.
 */
export class Receiver {
  readonly accepted: { eventId: string; type: string; body: Record<string, unknown> }[] = [];
  private server!: Server;
  private listener!: RequestListener;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.listener(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    this.verifyWith('whsec_not_the_right_one');
  }

  verifyWith(secret: string | string[]): void {
    const server = createReceiverServer({
      secret,
      work: (event: { eventId: string; type: string }) => {
        this.accepted.push({ eventId: event.eventId, type: event.type, body: event as never });
      },
    });
    this.listener = server.listeners('request')[0] as RequestListener;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Polls `probe` every 50 ms until it answers something, for at most `ms`. */
export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
