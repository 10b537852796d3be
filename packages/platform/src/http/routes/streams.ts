/**
 * `GET /v1/installations/{id}/stream`: the installation's dispatches and deliveries as they happen,
 * as server-sent events (events/live-feed.ts): `event: dispatch` with an item of GET
 * …/dispatches, `event: delivery` with an item of GET …/deliveries each time it changes. Each
 * event's id is the stream's position: a browser's EventSource resumes from it (Last-Event-ID), and
 * `?since=` starts from a time. A comment every 15 s keeps proxies from closing a quiet stream, and
 * with it the caller's access is checked again (a session that ended ends the stream).
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { DomainError, invalid } from '../../errors/domain-error.js';
import { LiveFeed, type LiveType, parseCursor } from '../../events/live-feed.js';
import { authorizedInstallation } from '../../installations/load.js';
import { bearer, errorResponses, parseTime, type RouteDeps, TAGS } from '../route.js';

/** How often an open stream reads what changed. */
export const POLL_MS = 1000;
/** How long a stream stays quiet before it sends a comment. */
export const HEARTBEAT_MS = 15_000;
const TYPES: readonly LiveType[] = ['dispatch', 'delivery'];

export interface StreamOptions {
  /** Aborted when the server stops: every open stream ends. */
  closing?: AbortSignal | undefined;
  heartbeatMs?: number | undefined;
}

export function streamRoutes(
  { ctx, principal }: Pick<RouteDeps, 'ctx' | 'principal'>,
  options: StreamOptions = {},
): OpenAPIHono {
  const app = new OpenAPIHono();
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/installations/{id}/stream',
      operationId: 'streamInstallationActivity',
      summary:
        'Dispatches and deliveries as they happen (server-sent events: `dispatch`, `delivery`); resumes from Last-Event-ID or `since`',
      tags: TAGS.installations,
      security: bearer,
      request: {
        params: z.object({ id: z.string() }),
        query: z.object({
          types: z
            .string()
            .optional()
            .openapi({ description: 'What to send: `dispatch`, `delivery` or both, comma-separated (default both)' }),
          since: z.string().optional().openapi({
            description: 'Also send what happened from this time on (ISO 8601 or Unix ms); default: from now',
          }),
        }),
        headers: z.object({
          'last-event-id': z
            .string()
            .optional()
            .openapi({ description: 'The id of the last event received: resume after it (wins over since)' }),
        }),
      },
      responses: {
        200: {
          description:
            '`event: dispatch` (data: an item of GET …/dispatches) and `event: delivery` (data: an item of GET …/deliveries, again each time it changes); `id` is the position to resume from; a `: heartbeat` comment every 15 s',
          content: { 'text/event-stream': { schema: z.string() } },
        },
        ...errorResponses,
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const query = c.req.valid('query');
      await authorizedInstallation(ctx, await principal(c), id);
      const types = new Set<LiveType>();
      for (const type of (query.types ?? TYPES.join(',')).split(',').map((t) => t.trim())) {
        if (!TYPES.includes(type as LiveType)) {
          throw invalid(
            'invalid_request',
            `query.types: \`${type}\` is not a type of event; give dispatch, delivery or both (comma-separated)`,
          );
        }
        types.add(type as LiveType);
      }
      const lastEventId = c.req.valid('header')['last-event-id'];
      if (lastEventId !== undefined && parseCursor(lastEventId) === undefined) {
        throw invalid('invalid_cursor', 'Last-Event-ID is not an event id this stream sent; reconnect without it');
      }
      const since = query.since === undefined ? ctx.now() : parseTime(query.since, 'query.since');
      const feed = new LiveFeed(ctx, id, types, { since, cursor: lastEventId });
      const ended = () => options.closing?.aborted === true || c.req.raw.signal.aborted;
      return streamSSE(c, async (stream) => {
        const cut = new AbortController();
        stream.onAbort(() => cut.abort());
        const stopped = () => ended() || stream.aborted || stream.closed;
        // The position, at once: a stream cut before its first event resumes from here.
        await stream.write(`retry: 2000\nid: ${feed.cursor}\n\n`);
        let quietSince = Date.now();
        while (!stopped()) {
          for (const event of await feed.poll()) {
            await stream.writeSSE({ event: event.type, data: JSON.stringify(event.data), id: event.cursor });
            quietSince = Date.now();
          }
          if (Date.now() - quietSince >= heartbeatMs) {
            const refused = await stillAllowed(c, id);
            if (refused !== undefined) {
              await stream.writeSSE({ event: 'error', data: JSON.stringify(refused) });
              break;
            }
            await stream.write(`: heartbeat\nid: ${feed.cursor}\n\n`);
            quietSince = Date.now();
          }
          if (!feed.behind) await sleep(POLL_MS, [options.closing, c.req.raw.signal, cut.signal]);
        }
      }) as never;
    },
  );

  /** The error that now refuses the caller (a session ended, a membership removed), if any. */
  async function stillAllowed(c: Context, id: string) {
    try {
      await authorizedInstallation(ctx, await principal(c), id);
      return undefined;
    } catch (error) {
      if (error instanceof DomainError) return { error: { code: error.code, message: error.message } };
      throw error;
    }
  }

  return app;
}

/** Waits `ms`, or less when one of the signals aborts. */
function sleep(ms: number, signals: (AbortSignal | undefined)[]): Promise<void> {
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      for (const signal of live) signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const signal of live) {
      if (signal.aborted) return done();
      signal.addEventListener('abort', done, { once: true });
    }
  });
}
