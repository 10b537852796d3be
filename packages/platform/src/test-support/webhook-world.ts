/**
 * A platform with the webhook integration installed into a space and a site, configured, and a
 * scripted receiver on 127.0.0.1 that records every request with its raw body.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import type { PlatformConfig, Tuning } from '../config.js';
import { currentToken } from '../installations/tokens.js';
import { type RunningPlatform, type StartOptions, startPlatform } from '../server.js';
import { client } from './api.js';
import type { Backend } from './backends.js';

export interface Received {
  at: number;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * Per path, the answers to give in turn: a status, `hang` (never answer), `reset` (drop the
 * connection) or `slow` (200 after 20 ms).
 */
export type Script = (number | 'hang' | 'reset' | 'slow')[];

export class ScriptedReceiver {
  readonly received: Received[] = [];
  /** Per path, requests left hanging that are still open now, and the most there were at once. */
  readonly hanging = new Map<string, { open: number; peak: number }>();
  private readonly scripts = new Map<string, Script>();
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({
          at: Date.now(),
          path,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        const script = this.scripts.get(path.split('?')[0] ?? path);
        const next = (script && script.length > 1 ? script.shift() : script?.[0]) ?? 200;
        if (next === 'hang') {
          const count = this.hanging.get(path) ?? { open: 0, peak: 0 };
          this.hanging.set(path, count);
          count.open++;
          count.peak = Math.max(count.peak, count.open);
          req.socket.once('close', () => count.open--);
          return;
        }
        if (next === 'reset') return req.socket.destroy();
        if (next === 'slow') {
          setTimeout(() => res.writeHead(200).end(), 20);
          return;
        }
        const headers: Record<string, string> =
          next >= 300 && next < 400 ? { location: `${this.url}/redirected` } : { 'content-type': 'application/json' };
        res.writeHead(next, headers);
        res.end(JSON.stringify({ answered: next }));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  script(path: string, answers: Script): string {
    this.scripts.set(path, [...answers]);
    return `${this.url}${path}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

export interface WebhookWorld {
  platform: RunningPlatform;
  admin: ReturnType<typeof client>;
  ada: ReturnType<typeof client>;
  orgInstallation: string;
  space: string;
  site: string;
  /** A client with the space installation's own token. */
  spaceToken: string;
  /** The settings it was started with (another node on the same PostgreSQL database can use them). */
  config: PlatformConfig;
  close(): Promise<void>;
}

export async function startWebhookWorld(
  backend: Backend,
  options: StartOptions & {
    allowPrivateNetwork?: boolean;
    tuning?: Partial<Tuning>;
    /** More settings, read when the world starts (after its receivers have, so their URLs are known). */
    settings?: () => Partial<PlatformConfig>;
  } = {},
): Promise<WebhookWorld> {
  const { config, cleanup } = await backend.fresh();
  const { allowPrivateNetwork = true, tuning, settings, ...start } = options;
  const platform = await startPlatform(
    { ...config, allowPrivateNetwork, tuning, ...settings?.() },
    { deliveryTimeoutMs: 1000, ...start },
  );
  const admin = client(platform.url, platform.adminToken);
  await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
  await admin('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' });
  await admin('POST', '/v1/orgs/acme/sites', { id: 'site', title: 'Site' });
  const token = (await admin('POST', '/v1/users', { id: 'ada', name: 'Ada' })).body.token as string;
  await admin('PUT', '/v1/orgs/acme/members/ada', { role: 'admin' });
  const ada = client(platform.url, token);
  const orgInstallation = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body
    .id as string;
  const space = (await ada('POST', `/v1/installations/${orgInstallation}/spaces/docs`)).body.id as string;
  const site = (await ada('POST', `/v1/installations/${orgInstallation}/sites/site`)).body.id as string;
  return {
    platform,
    admin,
    ada,
    orgInstallation,
    space,
    site,
    spaceToken: await currentToken(platform.ctx, space),
    config: { ...config, allowPrivateNetwork, tuning },
    async close() {
      await platform.close();
      await cleanup();
    },
  };
}

/**
 * A webhook world for one describe block: started, with `receivers`, before the block's tests and
 * closed after them; the answer stands for the world once started. With `ownEngine` the
 * platform's delivery engine is stopped (the tests drive their own).
 */
export function webhookWorldFor(
  backend: Backend,
  options: Parameters<typeof startWebhookWorld>[1] & { ownEngine?: boolean } = {},
  receivers: ScriptedReceiver[] = [],
): WebhookWorld {
  const { ownEngine = false, ...start } = options;
  let world: WebhookWorld | undefined;
  beforeAll(async () => {
    for (const receiver of receivers) await receiver.start();
    world = await startWebhookWorld(backend, start);
    if (ownEngine) await world.platform.deliveries.stop();
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    for (const receiver of receivers) await receiver.close();
  });
  return new Proxy({} as WebhookWorld, {
    get(_, key) {
      if (world === undefined) throw new Error('the webhook world is used before its beforeAll started it');
      return world[key as keyof WebhookWorld];
    },
  });
}

/** Polls `probe` every 50 ms until it answers something, for at most `ms`. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
