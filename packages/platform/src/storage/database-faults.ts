/**
 * What a database error says about the database itself, as opposed to the query: that it cannot be
 * reached or did not answer in time (the request may be tried again shortly: 503
 * `database_unavailable`), or that its disk is full (507 `storage_full`). Everything else is a
 * fault of the query or of the server, answered as before. `http/on-error.ts` maps these; the group
 * commit uses them to fail the writes queued behind a batch the database did not take.
 */

/** How long one PostgreSQL statement may go without an answer before its connection is given up. */
export const STATEMENT_TIMEOUT_MS = 3000;
/** How long a request may wait for a pooled PostgreSQL connection (or for a new one to open). */
export const ACQUIRE_TIMEOUT_MS = 1500;
/** What `Retry-After` says while the database is unavailable (seconds). */
export const RETRY_AFTER_UNAVAILABLE_S = 5;
/** What `Retry-After` says while the disk is full (seconds). */
export const RETRY_AFTER_FULL_S = 30;

/** A statement that had no answer within its time: its connection was closed (database.ts). */
export class DatabaseTimeout extends Error {
  readonly code = 'PORTICO_DATABASE_TIMEOUT';
  constructor(ms: number) {
    super(`the database did not answer within ${ms / 1000} s`);
    this.name = 'DatabaseTimeout';
  }
}

/** Node's socket errors for a peer that cannot be reached or went away. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PORTICO_DATABASE_TIMEOUT',
]);

/**
 * PostgreSQL's SQLSTATEs for a server that is not taking work now: connection exceptions (class
 * 08), shutdown and start-up (57P01-57P03), too many connections (53300), out of memory (53200).
 */
const POSTGRES_UNAVAILABLE = /^(08...|57P0[123]|53300|53200)$/;

/** The pg driver's own messages for a connection that timed out, closed or broke (they carry no code). */
const PG_CONNECTION_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Query read timeout',
];

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The error and what it wraps (`cause`), a few levels down. */
function* chain(error: unknown): Generator<unknown> {
  let current = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

/** The database could not be reached, refused work for now, or did not answer in time. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const e of chain(error)) {
    const code = codeOf(e);
    if (code !== undefined) {
      if (NETWORK_CODES.has(code) || POSTGRES_UNAVAILABLE.test(code)) return true;
      // Another process holds the SQLite file's lock past the busy timeout, or the disk failed.
      if (/^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|PROTOCOL)/.test(code)) return true;
    }
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && PG_CONNECTION_MESSAGES.some((text) => message.startsWith(text))) return true;
  }
  return false;
}

/** The disk that holds the database is full: SQLite's SQLITE_FULL, PostgreSQL's disk_full, or ENOSPC. */
export function isStorageFull(error: unknown): boolean {
  for (const e of chain(error)) {
    const code = codeOf(e);
    if (code === 'SQLITE_FULL' || code === '53100' || code === 'ENOSPC') return true;
  }
  return false;
}
