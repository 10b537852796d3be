/**
 * A typed client of the Portico HTTP API. Its types are generated from the platform's OpenAPI
 * document (the one `GET /v1/openapi.json` serves) by openapi-typescript when this package is
 * built, and its calls are openapi-fetch's: `client.POST('/v1/orgs', { body })` checks the path,
 * its parameters, the body and the answer against the document.
 *
 * ```ts
 * const portico = createPorticoClient({ baseUrl: 'https://portico.example.com', token });
 * const org = await unwrap(portico.POST('/v1/orgs', { body: { id: 'acme', title: 'Acme' } }));
 * ```
 */
import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './generated/schema.js';

/** openapi-fetch's middleware, for `client.use()`: a header on every request, say. */
export type { components, Middleware, operations, paths };
/** The document's named schemas: `Schemas['Installation']`. */
export type Schemas = components['schemas'];
export type PorticoClient = Client<paths>;

export interface PorticoClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The server's address, e.g. `https://portico.example.com` (a trailing slash is dropped). */
  baseUrl: string;
  /**
   * Sent as `Authorization: Bearer …`: the admin token (the operator), a user's API token or an
   * installation's token. Leave it out where a browser's session cookie signs the requests.
   */
  token?: string | undefined;
}

export function createPorticoClient({ baseUrl, token, ...options }: PorticoClientOptions): PorticoClient {
  if (typeof baseUrl !== 'string') {
    throw new TypeError('createPorticoClient: baseUrl must be the server address, e.g. https://portico.example.com');
  }
  const client = createClient<paths>({ ...options, baseUrl: baseUrl.replace(/\/+$/, '') });
  client.use(rememberRequests);
  if (token !== undefined) {
    if (token === '') throw new TypeError('createPorticoClient: token is empty; leave it out, or give the API token');
    client.use(bearer(token));
  }
  return client;
}

/** Each answer's request, so that a refusal can name it (a Response knows its URL, not its method). */
const requests = new WeakMap<Response, Request>();
const rememberRequests: Middleware = {
  onResponse({ request, response }) {
    requests.set(response, request);
    return undefined;
  },
};

function bearer(token: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${token}`);
      return request;
    },
  };
}

/** An answer of the API that is not a success: its status and the `{ error: { code, message } }` it sent. */
export class PorticoError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    /** The error body as the server sent it (`{ error: { code, message, … } }`), if it was JSON. */
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'PorticoError';
  }
}

/** What every openapi-fetch call answers. */
export interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The code and message of an error body, or undefined when the body is not the API's error. */
export function errorOf(body: unknown): { code: string; message: string } | undefined {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (typeof error?.code !== 'string') return undefined;
  return { code: error.code, message: typeof error.message === 'string' ? error.message : '' };
}

/**
 * The data of a successful answer, or a PorticoError naming the request and saying what the
 * server answered: `POST /v1/orgs answered 409 conflict: organization acme exists`.
 */
export async function unwrap<T>(request: Promise<Answer<T>>): Promise<T> {
  const answer = await request;
  if (answer.response.ok) return answer.data as T;
  throw refusal(answer.response, answer.error);
}

/** The request that got this answer from a client of createPorticoClient: `POST /v1/orgs`. */
export function requestOf(response: Response): string {
  const request = requests.get(response);
  const url = request?.url ?? response.url;
  const path = url ? new URL(url).pathname : 'the request';
  return request ? `${request.method} ${path}` : path;
}

/** The PorticoError for a refused answer. */
export function refusal(response: Response, body: unknown): PorticoError {
  const error = errorOf(body);
  const code = error?.code ?? `http_${response.status}`;
  const said = error?.message || response.statusText || 'no message';
  return new PorticoError(
    `${requestOf(response)} answered ${response.status} ${code}: ${said}`,
    response.status,
    code,
    body,
  );
}
