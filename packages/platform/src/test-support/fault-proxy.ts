/**
 * A TCP proxy on 127.0.0.1 that a test puts between the platform and its PostgreSQL server, and
 * that can make the database misbehave as networks do: `hang()` holds every byte in both directions
 * (connections stay open, nothing arrives: a stalled server, a full queue, a partition that drops
 * packets), `cut()` resets every connection and refuses new ones, `heal()` passes traffic again (the
 * bytes held meanwhile go on in order). Built on node:net; `close()` ends everything it opened.
 */

import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';

type Mode = 'pass' | 'hang' | 'cut';

interface Pair {
  client: Socket;
  upstream: Socket | undefined;
  /** Bytes held while hanging, per direction. */
  toUpstream: Buffer[];
  toClient: Buffer[];
}

export class FaultProxy {
  private mode: Mode = 'pass';
  private readonly pairs = new Set<Pair>();
  private constructor(
    private readonly server: Server,
    private readonly target: { host: string; port: number },
  ) {}

  /** Starts a proxy to `target` on a free port of 127.0.0.1. */
  static async start(target: { host: string; port: number }): Promise<FaultProxy> {
    const server = createServer();
    const proxy = new FaultProxy(server, target);
    server.on('connection', (client) => proxy.accept(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `url` (a `postgres://` URL of the target) with its host and port made the proxy's. */
  through(url: string): string {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(this.port);
    return proxied.toString();
  }

  /** Connections open now. */
  get open(): number {
    return this.pairs.size;
  }

  hang(): void {
    this.mode = 'hang';
  }

  cut(): void {
    this.mode = 'cut';
    for (const pair of [...this.pairs]) this.drop(pair);
  }

  heal(): void {
    this.mode = 'pass';
    for (const pair of this.pairs) {
      if (pair.upstream === undefined) this.connectUpstream(pair);
      else this.flush(pair);
    }
  }

  async close(): Promise<void> {
    for (const pair of [...this.pairs]) this.drop(pair);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const pair: Pair = { client, upstream: undefined, toUpstream: [], toClient: [] };
    this.pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      pair.toUpstream.push(chunk);
      this.flush(pair);
    });
    client.on('error', () => this.drop(pair));
    client.on('close', () => this.drop(pair));
    // A connection that arrives while the proxy hangs is accepted and answered nothing.
    if (this.mode === 'pass') this.connectUpstream(pair);
  }

  private connectUpstream(pair: Pair): void {
    const upstream = connect(this.target.port, this.target.host);
    pair.upstream = upstream;
    upstream.on('connect', () => this.flush(pair));
    upstream.on('data', (chunk: Buffer) => {
      pair.toClient.push(chunk);
      this.flush(pair);
    });
    upstream.on('error', () => this.drop(pair));
    upstream.on('close', () => this.drop(pair));
  }

  private flush(pair: Pair): void {
    if (this.mode !== 'pass') return;
    const upstream = pair.upstream;
    if (upstream !== undefined && !upstream.connecting) {
      for (const chunk of pair.toUpstream.splice(0)) upstream.write(chunk);
    }
    for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk);
  }

  private drop(pair: Pair): void {
    if (!this.pairs.delete(pair)) return;
    pair.client.resetAndDestroy();
    pair.upstream?.resetAndDestroy();
  }
}
