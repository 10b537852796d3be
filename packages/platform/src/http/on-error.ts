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
import {
  isDatabaseUnavailable,
  isStorageFull,
  RETRY_AFTER_FULL_S,
  RETRY_AFTER_UNAVAILABLE_S,
} from '../storage/database-faults.js';

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
  storage_full: 507,
};

/** Seconds a client should wait before trying again, by error code (sent as `Retry-After`). */
const RETRY_AFTER: Record<string, number> = {
  database_unavailable: RETRY_AFTER_UNAVAILABLE_S,
  storage_full: RETRY_AFTER_FULL_S,
};

/**
 * A database error that is about the database, not the request, in the API's words: it did not
 * answer (503 `database_unavailable`, try again shortly) or its disk is full (507 `storage_full`).
 * Undefined for any other error.
 */
export function databaseFault(error: unknown): DomainError | undefined {
  if (isStorageFull(error)) {
    return new DomainError(
      'storage_full',
      'storage_full',
      'the disk that holds the database is full: nothing was stored. Send it again once the operator has freed space',
    );
  }
  if (isDatabaseUnavailable(error)) {
    const reason = (error as { message?: unknown }).message;
    return new DomainError(
      'unavailable',
      'database_unavailable',
      `the database is unavailable${typeof reason === 'string' && reason ? ` (${reason})` : ''}; this request was not acknowledged. Send it again after the Retry-After delay (a repeated eventId is accepted once)`,
    );
  }
  return undefined;
}

/** A domain error as the API answers it, for the places that answer without Hono's `c`. */
export function errorResponse(error: DomainError): Response {
  const retryAfter = RETRY_AFTER[error.code];
  return Response.json(
    { error: { code: error.code, message: error.message, ...error.details } },
    {
      status: STATUS_OF[error.kind],
      ...(retryAfter === undefined ? {} : { headers: { 'retry-after': String(retryAfter) } }),
    },
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
    const fault = databaseFault(error);
    if (fault !== undefined) {
      logger?.warn({ err: error, path: c.req.path }, `answered ${fault.code}`);
      return errorResponse(fault);
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
