/**
 * The one place that turns errors into HTTP answers: a domain error's kind becomes its status, its
 * code and message the JSON body `{ error: { code, message, …details } }`. Anything else is the
 * server's own failure: logged, and answered 500 without its details.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from 'pino';
import { DomainError, type ErrorKind } from '../errors/domain-error.js';

export const STATUS_OF: Record<ErrorKind, ContentfulStatusCode> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  not_implemented: 501,
  integration_failed: 502,
  unavailable: 503,
  integration_timeout: 504,
};

/** A domain error as the API answers it, for the places that answer without Hono's `c`. */
export function errorResponse(error: DomainError): Response {
  return Response.json(
    { error: { code: error.code, message: error.message, ...error.details } },
    { status: STATUS_OF[error.kind] },
  );
}

export function onError(logger: Logger | undefined) {
  return (error: Error, c: Context) => {
    if (error instanceof DomainError) return errorResponse(error);
    if (error instanceof HTTPException) {
      const code =
        error.status === 415 ? 'unsupported_media_type' : error.status === 400 ? 'invalid_json' : 'bad_request';
      const message =
        error.status === 415
          ? 'send the body as JSON with Content-Type: application/json'
          : error.status === 400
            ? `the body is not valid JSON: ${error.message}`
            : error.message;
      return c.json({ error: { code, message } }, error.status);
    }
    if (isUniqueViolation(error)) {
      return c.json(
        { error: { code: 'conflict', message: 'it already exists (a concurrent request created it first)' } },
        409,
      );
    }
    logger?.error({ err: error, path: c.req.path }, 'unhandled error');
    return c.json({ error: { code: 'internal', message: 'the server failed; the error is in its log' } }, 500);
  };
}

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
