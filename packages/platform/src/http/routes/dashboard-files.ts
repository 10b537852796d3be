/**
 * Serves the built dashboard (`packages/dashboard/dist`, found through the `@portico/dashboard`
 * package) at `/`: its files as they are, and `index.html` for every other GET path outside `/v1`
 * and `/healthz`, so the web app's own routes (`/integrations/…`) load it. Hashed build outputs
 * (`assets/name-HASH.js`) are cached for a year; everything else is revalidated. Pages carry a
 * strict Content-Security-Policy. Text files (the scripts above all: about 500 KB) go compressed,
 * Brotli or gzip as the browser accepts, each compressed once and kept in memory while the file is
 * unchanged. Until the dashboard is built, `/` answers 503 saying how to build it.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { brotliCompress, gzip, constants as zlib } from 'node:zlib';
import { type Context, Hono } from 'hono';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** A build output named by its content (Vite's `[name]-[hash].[ext]` under `assets/`): it never changes. */
const HASHED = /^\/assets\/.+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

export interface DashboardFilesOptions {
  /** The built web app; default: `dist` of the `@portico/dashboard` package, looked up while it is missing. */
  dir?: string | undefined;
  /** Origins besides this one that pages may frame and show images from (the public endpoints' base). */
  extraOrigins?: () => string[];
  /** Origins whose pages may frame the dashboard (PORTICO_FRAME_ANCESTORS); none when empty. */
  frameAncestors?: string[] | undefined;
}

/** The dist directory of `@portico/dashboard`, or undefined while the package is not installed. */
export function findDashboardDist(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve('@portico/dashboard/package.json');
    return join(dirname(manifest), 'dist');
  } catch {
    return undefined;
  }
}

/**
 * The policy of the dashboard's pages: its own scripts only; web frames and images may come from
 * https sites; only `frameAncestors` (and the dashboard itself) may frame it, nobody when none.
 */
export function contentSecurityPolicy(extraOrigins: string[] = [], frameAncestors: string[] = []): string {
  const extra = extraOrigins.length > 0 ? ` ${extraOrigins.join(' ')}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: https:${extra}`,
    "font-src 'self' data:",
    "connect-src 'self'",
    // ContentKit `webframe` elements: sandboxed iframes of the integration's pages.
    `frame-src 'self' https:${extra}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    frameAncestors.length > 0 ? `frame-ancestors 'self' ${frameAncestors.join(' ')}` : "frame-ancestors 'none'",
  ].join('; ');
}

export function dashboardFiles(options: DashboardFilesOptions = {}): Hono {
  const app = new Hono();
  // Resolved, so `dist/` and `dist` (or a relative path) compare alike with the files inside it.
  let found = options.dir === undefined ? undefined : resolve(options.dir);
  const root = () => {
    found ??= findDashboardDist();
    return found;
  };

  app.get('*', async (c) => {
    const path = c.req.path;
    if (path === '/v1' || path.startsWith('/v1/') || path === '/healthz') return c.notFound();
    const dist = root();
    const index = dist === undefined ? undefined : await fileAt(join(dist, 'index.html'));
    if (dist === undefined || index === undefined) return notBuilt(c, dist);
    let relative: string;
    try {
      relative = normalize(decodeURIComponent(path));
    } catch {
      return c.notFound();
    }
    const candidate = join(dist, relative);
    const inside = candidate === dist || candidate.startsWith(dist + sep);
    const file = inside && !relative.includes('\0') ? await fileAt(candidate) : undefined;
    if (file === undefined && extname(path) !== '') {
      // A file the build does not have (an old hashed asset): not the page, which would run as a script.
      return c.json(
        { error: { code: 'not_found', message: `the dashboard has no file ${path}; reload the page` } },
        404,
      );
    }
    const served = file ?? index;
    const isIndex = served.path === index.path;
    const etag = `W/"${served.size.toString(16)}-${Math.floor(served.mtimeMs).toString(16)}"`;
    const headers: Record<string, string> = {
      'content-type': TYPES[extname(served.path).toLowerCase()] ?? 'application/octet-stream',
      'cache-control': !isIndex && HASHED.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache',
      etag,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
      'content-security-policy': contentSecurityPolicy(options.extraOrigins?.(), options.frameAncestors),
    };
    const encoding = COMPRESSIBLE.test(headers['content-type'] ?? '')
      ? acceptedEncoding(c.req.header('accept-encoding'))
      : undefined;
    if (COMPRESSIBLE.test(headers['content-type'] ?? '')) headers.vary = 'accept-encoding';
    if (encoding !== undefined && served.size >= MIN_COMPRESSED_BYTES) {
      headers.etag = `${etag.slice(0, -1)}-${encoding}"`;
      if (c.req.header('if-none-match') === headers.etag) return c.body(null, 304, headers);
      const body = await compressed(served, encoding);
      headers['content-encoding'] = encoding;
      headers['content-length'] = String(body.length);
      if (c.req.method === 'HEAD') return c.body(null, 200, headers);
      return c.body(new Uint8Array(body), 200, headers);
    }
    if (c.req.header('if-none-match') === etag) return c.body(null, 304, headers);
    headers['content-length'] = String(served.size);
    if (c.req.method === 'HEAD') return c.body(null, 200, headers);
    return c.body(Readable.toWeb(createReadStream(served.path)) as ReadableStream, 200, headers);
  });

  return app;
}

/** Types worth compressing (text); images and fonts are compressed already. */
const COMPRESSIBLE = /^(text\/|application\/(json|javascript|manifest\+json)|image\/svg\+xml)/;
/** Below this, compressing saves less than the header costs. */
const MIN_COMPRESSED_BYTES = 1024;

type Encoding = 'br' | 'gzip';

/** Brotli when the browser accepts it (every current one does over any origin), else gzip, else none. */
export function acceptedEncoding(header: string | undefined): Encoding | undefined {
  const accepted = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const allowed = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (allowed('br')) return 'br';
  if (allowed('gzip')) return 'gzip';
  return undefined;
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);
/** Compressed files by path, encoding, size and time: a file rebuilt in place is compressed again. */
const compressedFiles = new Map<string, Promise<Buffer>>();

export async function compressed(
  file: { path: string; size: number; mtimeMs: number },
  encoding: Encoding,
): Promise<Buffer> {
  const key = `${file.path}\0${encoding}\0${file.size}\0${file.mtimeMs}`;
  let body = compressedFiles.get(key);
  if (body === undefined) {
    body = readFile(file.path).then((bytes) =>
      encoding === 'br'
        ? brotli(bytes, {
            params: {
              [zlib.BROTLI_PARAM_QUALITY]: 9,
              [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
              [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length,
            },
          })
        : gzipped(bytes, { level: 9 }),
    );
    // A failed read is not kept: the next request tries again.
    body.catch(() => compressedFiles.delete(key));
    for (const old of compressedFiles.keys()) {
      if (old.startsWith(`${file.path}\0${encoding}\0`) && old !== key) compressedFiles.delete(old);
    }
    compressedFiles.set(key, body);
  }
  return body;
}

export async function fileAt(path: string): Promise<{ path: string; size: number; mtimeMs: number } | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? { path, size: info.size, mtimeMs: info.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

/** 503 until the web app is built: a page for browsers, the error JSON for everyone else. */
function notBuilt(c: Context, dist: string | undefined) {
  const message = `the dashboard is not built${dist ? ` (no ${join(dist, 'index.html')})` : ' (the @portico/dashboard package is not installed)'}: run \`npm run build\` in the Portico checkout, then reload this page`;
  if ((c.req.header('accept') ?? '').includes('text/html')) {
    const escaped = message.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
    return c.html(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Portico: the dashboard is not built</title></head><body><h1>The dashboard is not built</h1><p>${escaped}</p><p>The API is running: see <a href="/v1/openapi.json">/v1/openapi.json</a>.</p></body></html>`,
      503,
      { 'cache-control': 'no-store' },
    );
  }
  return c.json({ error: { code: 'dashboard_not_built', message } }, 503, { 'cache-control': 'no-store' });
}
