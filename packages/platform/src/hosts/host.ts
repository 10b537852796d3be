/**
 * Hosts run integration code. One interface, three implementations: workerd (published
 * third-party code, sandboxed), in-process (trusted first-party code and tests), and remote (an
 * integration served elsewhere). A dispatch is one HTTP request to the integration's `/v1`.
 */
import { type Envelope, encodeEnvelope, readAtMost } from '@portico/runtime';

export interface IntegrationBundle {
  name: string;
  version: number;
  /** The bundled ES module (empty for a remote integration). */
  script: string;
  /** For a remote integration: the base URL the platform POSTs envelopes to. */
  endpoint?: string | null;
}

/**
 * A dispatch: `GET /v1` (what the integration handles), or `POST /v1` with an envelope. Hosts that
 * reach the integration over HTTP encode the envelope (`wireBody`); the in-process host hands it
 * over as it is.
 */
export type HostRequest =
  | { method: 'GET'; installationId?: string }
  | {
      method: 'POST';
      envelope: Envelope;
      /** The installation the dispatch is for (egress and logs are recorded against it). */
      installationId?: string;
      /**
       * The `env` of an integration that runs in this process, for this dispatch (its service
       * bindings); the in-process host's own bindings otherwise. Other hosts ignore it.
       */
      bindings?: Record<string, unknown>;
    };

/** The headers and body of a dispatch as it goes over HTTP. */
export async function wireRequest(
  request: HostRequest,
): Promise<{ method: 'GET' | 'POST'; headers: Record<string, string>; body?: Uint8Array }> {
  if (request.method === 'GET') return { method: 'GET', headers: {} };
  const encoded = await encodeEnvelope(request.envelope);
  return { method: 'POST', headers: encoded.headers, body: encoded.body };
}

export interface HostResponse {
  status: number;
  headers: [string, string][];
  body: Uint8Array;
  /**
   * What the integration wrote to `console` while handling this dispatch, captured in-band (see
   * `output.ts`): bounded, in order, with their levels.
   */
  logs: LogLine[];
  durationMs: number;
}

/** The `console` method a line was written with (`debug` counts as `log`). */
export type LogLevel = 'log' | 'info' | 'warn' | 'error';

/** One line an integration wrote to `console`. */
export interface LogLine {
  level: LogLevel;
  message: string;
}

export type HostKind = 'workerd' | 'in-process' | 'remote';

export interface Host {
  readonly kind: HostKind;
  dispatch(bundle: IntegrationBundle, request: HostRequest): Promise<HostResponse>;
  close(): Promise<void>;
}

export type HostFailure = 'timeout' | 'startup' | 'crashed' | 'memory' | 'too_large' | 'unreachable';

/** A dispatch the host could not complete; the message says what happened to the integration. */
export class HostError extends Error {
  constructor(
    readonly failure: HostFailure,
    message: string,
  ) {
    super(message);
    this.name = 'HostError';
  }
}

export const DEFAULT_DISPATCH_TIMEOUT_MS = 10_000;
/** Integration responses larger than this are refused (the public endpoint streams nothing bigger). */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** The body of a response, or a HostError once it grows past `limit`. */
export async function readResponse(response: Response, limit = MAX_RESPONSE_BYTES): Promise<Uint8Array> {
  const body = await readAtMost(response, limit);
  if (body === undefined) throw tooLarge(limit);
  return body;
}

export function tooLarge(limit = MAX_RESPONSE_BYTES): HostError {
  return new HostError('too_large', `the integration answered more than ${limit} bytes; the limit is ${limit}`);
}

/** Races `work` against a wall-clock limit; `onTimeout` runs (e.g. restarts the worker) when the limit wins. */
export async function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  onTimeout: () => Promise<void> | void,
  what: string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Settle first: stopping the work makes it fail too, and the timeout is the cause.
      reject(new HostError('timeout', `${what} did not answer within ${ms / 1000} s; it was stopped`));
      void Promise.resolve(onTimeout()).catch(() => {});
    }, ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
