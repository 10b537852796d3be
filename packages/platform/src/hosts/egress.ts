/**
 * The platform's egress: every outbound request of sandboxed integration code passes here. It is
 * recorded against the installation, and refused when it targets a loopback, private, link-local
 * or otherwise internal address (unless PORTICO_ALLOW_PRIVATE_NETWORK=1). The check is the DNS
 * lookup of the connection itself, so the address checked is the address connected to. Redirects
 * are handed back to the integration, so each hop is checked again.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { FAILED_HEADER } from './worker-fetch.js';

export interface EgressRecord {
  installationId: string | null;
  integration: string;
  method: string;
  url: string;
  status: number | null;
  refused: string | null;
}

export interface EgressOptions {
  allowPrivateNetwork: boolean;
  /** Origins reachable whatever their address: the platform's own API, which integrations call. */
  trustedOrigins?: () => readonly string[];
  record(entry: EgressRecord): void | Promise<void>;
}

const internal = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  internal.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  internal.addSubnet(network, prefix, 'ipv6');
}

/** True for addresses no integration may reach by default. IPv4-mapped IPv6 addresses are checked as IPv4. */
export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return internal.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return internal.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A destination refused by the egress check. */
export class EgressRefused extends Error {}

/** A DNS lookup that answers only addresses outbound requests may reach. */
export function guardedLookup(allowPrivateNetwork: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4);
      const blocked = allowPrivateNetwork ? undefined : addresses.find((a) => isInternalAddress(a.address));
      if (blocked) {
        return callback(
          new EgressRefused(
            `${hostname} resolves to ${blocked.address}, a loopback, private, link-local or reserved address`,
          ),
          '',
          4,
        );
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname} has no address`), '', 4);
      callback(null, first.address, first.family);
    });
  };
}

/** How long an outbound request of integration code may take in all. */
const EGRESS_TIMEOUT_MS = 30_000;
/** Headers that belong to one connection, not to the request or response passed on. */
export const HOP_BY_HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
  'content-length',
]);

/**
 * Headers the runtime adds to a worker's outbound requests that the integration did not set:
 * miniflare's `cf-worker: <name>.example.com` (a placeholder zone that names nothing here).
 */
const RUNTIME_REQUEST_HEADERS = new Set(['cf-worker']);

/** Sends one request with node:http, resolving names through `lookup`; answers a web Response (redirects not followed). */
function forward(
  url: URL,
  request: Request,
  body: Buffer | undefined,
  lookup: LookupFunction | undefined,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of request.headers)
      if (name !== 'host' && !HOP_BY_HOP_HEADERS.has(name) && !RUNTIME_REQUEST_HEADERS.has(name)) headers[name] = value;
    if (body !== undefined) headers['content-length'] = String(body.length);
    const client = url.protocol === 'https:' ? https : http;
    const outgoing = client.request(
      url,
      { method: request.method, headers, ...(lookup ? { lookup } : {}) },
      (incoming) => {
        const answer = new Headers();
        for (let i = 0; i < incoming.rawHeaders.length; i += 2) {
          const name = incoming.rawHeaders[i] as string;
          // The host's mark of a failed request (worker-fetch.ts) comes from the host only.
          if (!HOP_BY_HOP_HEADERS.has(name.toLowerCase()) && name.toLowerCase() !== FAILED_HEADER)
            answer.append(name, incoming.rawHeaders[i + 1] as string);
        }
        const status = incoming.statusCode ?? 502;
        const empty = request.method === 'HEAD' || status === 204 || status === 304;
        if (empty) incoming.resume();
        resolve(
          new Response(empty ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>), {
            status,
            headers: answer,
          }),
        );
      },
    );
    outgoing.setTimeout(EGRESS_TIMEOUT_MS, () =>
      outgoing.destroy(new Error(`no answer within ${EGRESS_TIMEOUT_MS / 1000} s`)),
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export function createEgress(options: EgressOptions) {
  return async function egress(
    request: Request,
    who: { integration: string; installationId: string | null },
  ): Promise<Response> {
    const base = {
      installationId: who.installationId,
      integration: who.integration,
      method: request.method,
      url: request.url,
    };
    const refuse = async (reason: string) => {
      await options.record({ ...base, status: null, refused: reason });
      return Response.json(
        { error: `egress refused: ${reason}` },
        { status: 403, headers: { 'x-portico-egress': 'refused' } },
      );
    };
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return refuse(`"${request.url}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return refuse(`${url.protocol} is not http or https`);
    const guarded = !options.allowPrivateNetwork && !(options.trustedOrigins?.() ?? []).includes(url.origin);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (guarded && isIP(host) !== 0 && isInternalAddress(host)) {
      return refuse(
        `${host} is a loopback, private or link-local address; integrations may reach public addresses only`,
      );
    }
    let response: Response;
    try {
      const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
      const body = hasBody ? Buffer.from(await request.arrayBuffer()) : undefined;
      response = await forward(url, request, body, guarded ? guardedLookup(false) : undefined);
    } catch (error) {
      if (error instanceof EgressRefused)
        return refuse(`${error.message}; integrations may reach public addresses only`);
      await options.record({ ...base, status: null, refused: null });
      throw error;
    }
    await options.record({ ...base, status: response.status, refused: null });
    return response;
  };
}
