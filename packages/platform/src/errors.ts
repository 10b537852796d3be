/**
 * The platform's one error type: a code, a status, a message that says what was wrong and how
 * to fix it, and optional details. The HTTP layer turns it into `{ error: { code, message, … } }`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (code: string, message: string, details?: Record<string, unknown>) =>
  new ApiError(400, code, message, details);
export const unauthorized = (message = 'send a valid token: Authorization: Bearer <token>') =>
  new ApiError(401, 'unauthorized', message);
export const forbidden = (message: string) => new ApiError(403, 'forbidden', message);
export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} does not exist`);
export const conflict = (message: string) => new ApiError(409, 'conflict', message);

/** This node no longer holds a row's lease: what it did is rolled back and the new holder's work stands. */
export class LeaseLost extends Error {
  constructor(id: string) {
    super(`the lease on ${id} ran out before its result was written; the node that took it over writes the result`);
    this.name = 'LeaseLost';
  }
}
