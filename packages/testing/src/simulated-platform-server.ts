/**
 * The simulated platform's HTTP side, on a real server on 127.0.0.1: the API routes an
 * installation's token may call (DESIGN.md's contract) and the installation's public endpoint.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PlatformRoutes {
  token: string;
  installationId: string;
  getInstallation(): unknown;
  patchConfiguration(patch: Record<string, unknown>): unknown;
  /** The public endpoint: `request` reached `/v1/installations/{id}/public[/…]`. */
  publicEndpoint(request: Request): Promise<Response>;
  onApiRequest(method: string, path: string, body: string): void;
}

const MAX_BODY_BYTES = 10 * 1024 * 1024;

export async function startPlatformServer(routes: PlatformRoutes): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    handle(routes, req, res).catch((error) => {
      if (!res.headersSent) sendJson(res, 500, { error: { code: 'internal', message: String(error) } });
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(routes: PlatformRoutes, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const prefix = `/v1/installations/${encodeURIComponent(routes.installationId)}`;
  const body = await readBody(req);
  if (body === undefined)
    return sendJson(res, 413, error('payload_too_large', `bodies are limited to ${MAX_BODY_BYTES} bytes`));

  if (url.pathname === `${prefix}/public` || url.pathname.startsWith(`${prefix}/public/`)) {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else if (value !== undefined) headers.set(name, value);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method ?? 'GET',
      headers,
      ...(hasBody ? { body } : {}),
    });
    const response = await routes.publicEndpoint(request);
    const outHeaders: Record<string, string | string[]> = {};
    for (const [name, value] of response.headers) {
      const existing = outHeaders[name];
      outHeaders[name] = existing === undefined ? value : [...([] as string[]).concat(existing), value];
    }
    res.writeHead(response.status, outHeaders);
    res.end(new Uint8Array(await response.arrayBuffer()));
    return;
  }

  const text = new TextDecoder().decode(body);
  routes.onApiRequest(req.method ?? 'GET', url.pathname, text);
  if (req.headers.authorization !== `Bearer ${routes.token}`) {
    return sendJson(
      res,
      401,
      error('unauthorized', 'a valid installation token is required (Authorization: Bearer …)'),
    );
  }
  if (url.pathname === prefix && req.method === 'GET') return sendJson(res, 200, routes.getInstallation());
  if (url.pathname === `${prefix}/configuration` && req.method === 'PATCH') {
    let patch: unknown;
    try {
      patch = JSON.parse(text);
    } catch {
      return sendJson(res, 400, error('invalid_json', 'the body is not valid JSON'));
    }
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
      return sendJson(res, 400, error('invalid_body', 'the body must be a JSON object of configuration properties'));
    }
    return sendJson(res, 200, routes.patchConfiguration(patch as Record<string, unknown>));
  }
  if (url.pathname.startsWith('/v1/installations/')) {
    return sendJson(res, 403, error('forbidden', 'this token belongs to another installation'));
  }
  return sendJson(res, 404, error('not_found', `no route ${req.method} ${url.pathname} in the simulated platform`));
}

function error(code: string, message: string) {
  return { error: { code, message } };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}
