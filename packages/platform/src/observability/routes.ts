/**
 * The operations routes: `GET /readyz` (readiness.ts) and `GET /metrics` (Prometheus text format,
 * metrics.ts), open on the server's address or, when `PORTICO_METRICS_TOKEN` is set, only to
 * `Authorization: Bearer <that token>`. Errors are in the API's shape, `{ error: { code, message } }`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import type { PlatformMetrics } from './metrics.js';
import type { ReadinessCheck } from './readiness.js';

export interface OperationsOptions {
  readiness: ReadinessCheck;
  metrics: PlatformMetrics;
  /** When set, `/metrics` answers only requests that carry it as a bearer token. */
  metricsToken?: string | undefined;
}

export function operationsRoutes(options: OperationsOptions): Hono {
  const app = new Hono();
  app.get('/readyz', async (c) => {
    const readiness = await options.readiness.check();
    c.header('cache-control', 'no-store');
    if (readiness.ready) return c.json({ ready: true });
    return c.json({ error: { code: readiness.code, message: readiness.message } }, 503);
  });
  app.get('/metrics', async (c) => {
    c.header('cache-control', 'no-store');
    if (options.metricsToken !== undefined) {
      const header = c.req.header('authorization');
      const sent = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
      if (sent === undefined) {
        c.header('www-authenticate', 'Bearer realm="portico-metrics"');
        return c.json(
          {
            error: {
              code: 'unauthorized',
              message:
                'this server’s metrics need its metrics token: send Authorization: Bearer <PORTICO_METRICS_TOKEN>',
            },
          },
          401,
        );
      }
      if (!sameToken(sent, options.metricsToken)) {
        c.header('www-authenticate', 'Bearer realm="portico-metrics", error="invalid_token"');
        return c.json(
          { error: { code: 'unauthorized', message: 'the bearer token is not this server’s PORTICO_METRICS_TOKEN' } },
          401,
        );
      }
    }
    const { text, contentType } = await options.metrics.render();
    return c.body(text, 200, { 'content-type': contentType });
  });
  return app;
}

/** Compares in constant time whatever the lengths (both are hashed first). */
function sameToken(sent: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(sent), digest(expected));
}
