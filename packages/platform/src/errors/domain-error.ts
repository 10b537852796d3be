/**
 * The platform's coded domain errors. A service throws one to say what went wrong in the domain's
 * words: its `kind` (what sort of refusal it is), a `code` the caller can act on
 * (`invalid_configuration`, `installation_paused`…), a message that says what was wrong and how
 * to fix it, and optional details. No layer below `http/` knows HTTP statuses:
 * `http/on-error.ts` maps each kind to one.
 */
export type ErrorKind =
  /** The input is wrong: the message says where and how to fix it. */
  | 'invalid'
  /** No valid credentials came with the call. */
  | 'unauthenticated'
  /** The caller is known but may not do this. */
  | 'forbidden'
  | 'not_found'
  /** The thing's current state refuses the change (exists already, disabled, paused…). */
  | 'conflict'
  | 'too_large'
  /** A part of the contract this platform does not implement. */
  | 'not_implemented'
  /** The integration's code failed or answered something invalid. */
  | 'integration_failed'
  /** The integration did not answer within its time. */
  | 'integration_timeout'
  /** The thing cannot serve now (paused, draining, the database unreachable) and may later. */
  | 'unavailable'
  /** The disk that holds the database is full: nothing more can be stored until space is freed. */
  | 'storage_full';

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalid = (code: string, message: string, details?: Record<string, unknown>) =>
  new DomainError('invalid', code, message, details);
export const unauthenticated = (message = 'send a valid token: Authorization: Bearer <token>') =>
  new DomainError('unauthenticated', 'unauthorized', message);
export const forbidden = (message: string) => new DomainError('forbidden', 'forbidden', message);
export const notFound = (what: string) => new DomainError('not_found', 'not_found', `${what} does not exist`);
export const conflict = (message: string, code = 'conflict') => new DomainError('conflict', code, message);
