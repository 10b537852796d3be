/**
 * The platform's egress: every outbound request of sandboxed integration code passes here. It is
 * recorded against the installation, and refused when it targets a loopback, private, link-local
 * or otherwise internal address (unless PORTICO_ALLOW_PRIVATE_NETWORK=1). Redirects are handed
 * back to the integration, so each hop is checked again.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

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
    if (!options.allowPrivateNetwork && !(options.trustedOrigins?.() ?? []).includes(url.origin)) {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      let addresses: string[];
      try {
        addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
      } catch {
        return refuse(`${host} does not resolve`);
      }
      const blocked = addresses.find(isInternalAddress);
      if (blocked !== undefined) {
        return refuse(
          `${host} is a loopback, private or link-local address (${blocked}); integrations may reach public addresses only`,
        );
      }
    }
    let response: Response;
    try {
      const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
      response = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        ...(hasBody ? { body: await request.arrayBuffer() } : {}),
        redirect: 'manual',
      });
    } catch (error) {
      await options.record({ ...base, status: null, refused: null });
      throw error;
    }
    await options.record({ ...base, status: response.status, refused: null });
    return response;
  };
}
