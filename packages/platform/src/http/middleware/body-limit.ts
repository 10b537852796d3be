/**
 * Bodies over their route's limit are refused with 413 before any route reads them: by their
 * declared length, or, when it is not declared (chunked), by reading at most the limit here.
 */
import { readAtMost } from '@portico/runtime';
import type { MiddlewareHandler } from 'hono';
import { DomainError } from '../../errors/domain-error.js';

/** Bodies larger than this are refused with 413 (publishing: the larger limit, for the script). */
export const BODY_LIMIT_BYTES = 1024 * 1024;
export const PUBLISH_BODY_LIMIT_BYTES = 8 * 1024 * 1024;
/** Requests to public endpoints may carry up to this much (webhooks with attachments, uploads). */
export const PUBLIC_BODY_LIMIT_BYTES = 10 * 1024 * 1024;
/** An installation's public endpoint, or a GitBook-dialect integration's integration-wide ones. */
const PUBLIC_PATH = /^\/v1\/(installations\/[^/]+\/public|integrations\/[^/]+\/public(-content)?)(\/|$)/;

/** The largest body `path` accepts. */
export function bodyLimitOf(path: string): number {
  return path === '/v1/integrations' || path === '/v1/events/batch'
    ? PUBLISH_BODY_LIMIT_BYTES
    : PUBLIC_PATH.test(path)
      ? PUBLIC_BODY_LIMIT_BYTES
      : BODY_LIMIT_BYTES;
}

export function bodyLimit(): MiddlewareHandler {
  return async (c, next) => {
    const limit = bodyLimitOf(c.req.path);
    const declared = Number(c.req.header('content-length') ?? '0');
    if (declared > limit)
      throw new DomainError(
        'too_large',
        'payload_too_large',
        `the body is ${declared} bytes; the limit for this route is ${limit}`,
      );
    // (Asked in this order: reading `body` makes the Node adapter build a whole Request.)
    if (
      c.req.method !== 'GET' &&
      c.req.method !== 'HEAD' &&
      c.req.header('content-length') === undefined &&
      c.req.raw.body !== null
    ) {
      // A body of unknown length (chunked) is read here, up to the limit, so no route reads more.
      const bytes = await readAtMost(c.req.raw, limit);
      if (bytes === undefined)
        throw new DomainError(
          'too_large',
          'payload_too_large',
          `the body is larger than the limit for this route, ${limit} bytes`,
        );
      c.req.raw = new Request(c.req.raw, { body: bytes });
    }
    await next();
  };
}
