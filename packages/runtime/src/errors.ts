/**
 * Errors an integration (or the SDK) may show to the platform and its users. Anything else
 * thrown by integration code becomes a 500 that reveals nothing of the error.
 */

const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'unprocessable',
  429: 'rate_limited',
  502: 'bad_gateway',
  503: 'unavailable',
};

/** Throw it from integration code to answer `{ error: { code, message } }` with `status`. */
export class ExposableError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(message: string, status = 400, code?: string) {
    super(message);
    this.name = 'ExposableError';
    this.status = Number.isInteger(status) && status >= 400 && status <= 599 ? status : 500;
    this.code = code ?? CODES[this.status] ?? 'error';
  }
}

/** A request that is not a valid envelope (malformed multipart, a missing or invalid part). */
export class EnvelopeError extends ExposableError {
  constructor(message: string, code: 'invalid_envelope' | 'envelope_too_large' = 'invalid_envelope') {
    super(message, 400, code);
    this.name = 'EnvelopeError';
  }
}

/** `{ error: { code, message } }` with `status`: the error body of the platform and the SDK alike. */
export function errorResponse(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}
