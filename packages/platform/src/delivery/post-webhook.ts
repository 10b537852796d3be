/**
 * One webhook attempt over HTTP: POST the exact body, never follow redirects, keep the first
 * 16 KiB of the answer, and give up at the deadline. The egress guard refuses destinations that
 * are, or resolve to, loopback, private, link-local, unique-local, multicast or metadata addresses,
 * and the connection goes to the address that was checked (the lookup is the guard), so a DNS
 * answer cannot change between the check and the connection. The POST goes through undici's
 * dispatcher with a handler of its own (decision 063): no stream or abort signal per attempt.
 */
import { isIP } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { EgressRefused, guardedLookup, isInternalAddress } from '../hosts/egress.js';

export const RESPONSE_EXCERPT_BYTES = 16 * 1024;
/** Answers are read (and dropped) up to this much, then the connection is closed. */
const RESPONSE_READ_LIMIT = 1024 * 1024;

export interface PostOptions {
  timeoutMs: number;
  allowPrivateNetwork: boolean;
  /** A W3C `traceparent` naming the attempt's span, sent when tracing is told to (`TracingSettings.sendTraceparent`). */
  traceparent?: string | undefined;
}

export type PostResult =
  | {
      kind: 'answered';
      status: number;
      excerpt: string;
      durationMs: number;
      retryAfter?: string | undefined;
      /** A redirect's `Location`, resolved against the URL posted to (redirects are not followed). */
      location?: string | undefined;
    }
  | { kind: 'network'; error: Error; durationMs: number }
  | { kind: 'refused'; reason: string; durationMs: number };

/**
 * Connections kept alive between attempts (undici's connection pools, one per origin, decision 063).
 * An idle one is closed after 30 s, or a second before the receiver said it would close it
 * (`Keep-Alive: timeout=N`): reusing a connection the receiver is closing at that moment fails the
 * attempt with a reset. The attempt's own deadline is `timeoutMs`, not this: undici's own header
 * and body timers are off. One dispatcher per egress setting, as the lookup is its guard.
 */
const IDLE_CONNECTION_MS = 30_000;
const dispatchers = new Map<boolean, Agent>();
function dispatcherFor(allowPrivateNetwork: boolean): Agent {
  let agent = dispatchers.get(allowPrivateNetwork);
  if (agent === undefined) {
    agent = new Agent({
      connections: 64,
      keepAliveTimeout: IDLE_CONNECTION_MS,
      keepAliveMaxTimeout: IDLE_CONNECTION_MS,
      keepAliveTimeoutThreshold: 1000,
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: { lookup: guardedLookup(allowPrivateNetwork) },
    });
    dispatchers.set(allowPrivateNetwork, agent);
  }
  return agent;
}

/** Why `url` may not be delivered to, before any connection; undefined when it may. */
export function destinationProblem(url: string, allowPrivateNetwork: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a URL`;
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && allowPrivateNetwork)) {
    return parsed.protocol === 'http:'
      ? 'webhook URLs must use https (http is allowed only with PORTICO_ALLOW_PRIVATE_NETWORK=1)'
      : `${parsed.protocol} is not http or https`;
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivateNetwork && isIP(host) !== 0 && isInternalAddress(host)) {
    return `${host} is a loopback, private, link-local or reserved address`;
  }
  if (!allowPrivateNetwork && /^localhost\.?$/i.test(host)) return 'localhost is a loopback address';
  return undefined;
}

export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const problem = destinationProblem(url, options.allowPrivateNetwork);
  if (problem !== undefined) return Promise.resolve({ kind: 'refused', reason: problem, durationMs: 0 });
  const target = new URL(url);
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    let controller: Dispatcher.DispatchController | undefined;
    let status: number | undefined;
    let answerHeaders: Record<string, string | string[] | undefined> = {};
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let readBytes = 0;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
    };
    const answered = (statusCode: number) => {
      const header = (name: string) => {
        const value = answerHeaders[name];
        return Array.isArray(value) ? value[0] : value;
      };
      finish({
        kind: 'answered',
        status: statusCode,
        excerpt: Buffer.concat(kept).toString('utf8'),
        durationMs: elapsed(),
        retryAfter: header('retry-after'),
        location: redirectTarget(target, statusCode, header('location')),
      });
    };
    const deadline = setTimeout(() => {
      const error = new Error(`no answer within ${options.timeoutMs / 1000} s`);
      error.name = 'TimeoutError';
      finish({ kind: 'network', error, durationMs: elapsed() });
      controller?.abort(error);
    }, options.timeoutMs);
    dispatcherFor(options.allowPrivateNetwork).dispatch(
      {
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: options.traceparent === undefined ? headers : { ...headers, traceparent: options.traceparent },
        body: Buffer.from(body, 'utf8'),
      },
      {
        onRequestStart(started) {
          controller = started;
          // (The deadline passed while it connected.)
          if (settled) started.abort(new Error('the attempt had ended'));
        },
        onResponseStart(_controller, statusCode, responseHeaders) {
          status = statusCode;
          answerHeaders = responseHeaders;
        },
        onResponseData(reading, chunk) {
          readBytes += chunk.length;
          if (keptBytes < RESPONSE_EXCERPT_BYTES) {
            kept.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - keptBytes));
            keptBytes += Math.min(chunk.length, RESPONSE_EXCERPT_BYTES - keptBytes);
          }
          // The rest is dropped with the connection: the answer (its status) is in.
          if (readBytes > RESPONSE_READ_LIMIT && status !== undefined) {
            answered(status);
            reading.abort(new Error('the answer was longer than 1 MiB'));
          }
        },
        onResponseEnd() {
          answered(status ?? 0);
        },
        onResponseError(_controller, error) {
          // An answer cut short still answered.
          if (status !== undefined) return answered(status);
          // (undici passes the lookup's own error on.)
          if (error instanceof EgressRefused)
            return finish({ kind: 'refused', reason: error.message, durationMs: elapsed() });
          finish({ kind: 'network', error: networkError(error), durationMs: elapsed() });
        },
      },
    );
  });
}

/** undici's error, said as the receiver's doing where it was (its own words say "other side closed"). */
function networkError(error: Error): Error {
  if ((error as { code?: string }).code !== 'UND_ERR_SOCKET') return error;
  return new Error(`the receiver closed the connection before it answered (${error.message})`);
}

/** Where a 3xx answer pointed, as an absolute URL (the header as sent when it is not a URL). */
function redirectTarget(posted: URL, status: number, location: string | undefined): string | undefined {
  if (status < 300 || status >= 400 || location === undefined) return undefined;
  try {
    return new URL(location, posted).toString().slice(0, 2000);
  } catch {
    return location.slice(0, 2000);
  }
}

/**
 * An attempt's error for an answer that is not 2xx. A redirect is not followed (the body and its
 * signature are for the URL configured): the error says where `Location` pointed, so the operator
 * can fix the endpoint's URL.
 */
export function answerError(result: { status: number; location?: string | undefined }): string {
  if (result.status >= 300 && result.status < 400) {
    return result.location === undefined
      ? `${result.status}: redirects are not followed, and the answer had no Location`
      : `${result.status}: redirects are not followed; Location pointed to ${result.location} (set the endpoint's URL to it if that is where deliveries belong)`;
  }
  return `the receiver answered ${result.status}`;
}
