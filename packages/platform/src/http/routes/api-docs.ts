/**
 * The API's reference page: `GET /v1/docs` renders the document `GET /v1/openapi.json` serves with
 * Redoc's standalone bundle (the `redoc` package, decision 055), which this server serves itself at
 * `/v1/docs/redoc.standalone.js`, compressed as the dashboard's scripts are. The page loads nothing
 * from anywhere else: no fonts, no CDN; its own Content-Security-Policy allows this origin only.
 * `/docs` redirects here.
 */
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import { acceptedEncoding, compressed, fileAt } from './dashboard-files.js';

const SCRIPT_PATH = '/v1/docs/redoc.standalone.js';

/**
 * Redoc renders with styles it writes at run time (inline `<style>`) and runs its search index in
 * a worker it makes from a `blob:` URL; everything else is this origin's.
 */
export const API_DOCS_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The bundle's file, or undefined while the `redoc` package is not installed. */
export function findRedocBundle(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  } catch {
    return undefined;
  }
}

// `<redoc>` is the element the standalone bundle renders into when it loads; its attributes are
// Redoc's options. No inline script: the policy above forbids it.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Portico API reference</title>
<style>body { margin: 0; } noscript { display: block; padding: 1rem; font-family: system-ui, sans-serif; }</style>
</head>
<body>
<noscript>The reference page needs JavaScript. The API's document is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
<redoc spec-url="/v1/openapi.json" expand-responses="200,201" required-props-first="true" sort-props-alphabetically="false"></redoc>
<script src="${SCRIPT_PATH}"></script>
</body>
</html>
`;

const PAGE_HEADERS = {
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'content-security-policy': API_DOCS_POLICY,
};

export function apiDocsRoutes(options: { bundle?: string | undefined } = {}): Hono {
  const app = new Hono();
  let bundle = options.bundle;

  app.get('/docs', (c) => c.redirect('/v1/docs', 301));
  app.get('/v1/docs', (c) => c.html(PAGE, 200, PAGE_HEADERS));
  app.get(SCRIPT_PATH, async (c) => {
    bundle ??= findRedocBundle();
    const file = bundle === undefined ? undefined : await fileAt(bundle);
    if (file === undefined) {
      return c.json(
        {
          error: {
            code: 'docs_not_installed',
            message:
              'the reference page needs the redoc package, which is not installed: run `npm install` in the Portico checkout, or read the document at /v1/openapi.json',
          },
        },
        503,
        { 'cache-control': 'no-store' },
      );
    }
    const etag = `W/"${file.size.toString(16)}-${Math.floor(file.mtimeMs).toString(16)}"`;
    const headers: Record<string, string> = {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'no-cache',
      etag,
      vary: 'accept-encoding',
      'x-content-type-options': 'nosniff',
    };
    const encoding = acceptedEncoding(c.req.header('accept-encoding'));
    if (encoding !== undefined) {
      headers.etag = `${etag.slice(0, -1)}-${encoding}"`;
      if (c.req.header('if-none-match') === headers.etag) return c.body(null, 304, headers);
      const body = await compressed(file, encoding);
      headers['content-encoding'] = encoding;
      headers['content-length'] = String(body.length);
      return c.body(new Uint8Array(body), 200, headers);
    }
    if (c.req.header('if-none-match') === etag) return c.body(null, 304, headers);
    headers['content-length'] = String(file.size);
    return c.body(Readable.toWeb(createReadStream(file.path)) as ReadableStream, 200, headers);
  });

  return app;
}
