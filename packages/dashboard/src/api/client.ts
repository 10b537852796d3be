/**
 * The API client: @portico/client, whose types are generated from the platform's OpenAPI document
 * when it is built. Requests carry the session cookie; every request that changes something also
 * carries the session's CSRF token.
 */
import { type Schemas as ClientSchemas, createPorticoClient, type Middleware } from '@portico/client';

export type Schemas = ClientSchemas;

/** An answer of the API that is not a success: `{ error: { code, message } }` and its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let csrfToken: string | undefined;

/** The signed-in session's CSRF token (GET or POST /v1/session answers it); undefined after sign-out. */
export function setCsrfToken(token: string | undefined) {
  csrfToken = token;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

const csrf: Middleware = {
  onRequest({ request }) {
    if (!SAFE.has(request.method) && csrfToken !== undefined) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
};

export const api = createPorticoClient({ baseUrl: globalThis.location?.origin ?? '', credentials: 'same-origin' });
api.use(csrf);

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's data, or an ApiError that says what the server refused and why. */
export async function call<T>(request: Promise<Answer<T>>): Promise<T> {
  return (await callWithHeaders(request)).data;
}

/** The answer's data and headers (a page's cursor), or an ApiError. */
export async function callWithHeaders<T>(request: Promise<Answer<T>>): Promise<{ data: T; headers: Headers }> {
  let answer: Answer<T>;
  try {
    answer = await request;
  } catch {
    // In plain words, once: the browser's own text ("Failed to fetch") says nothing more to a person.
    throw new ApiError(
      0,
      'network',
      'the Portico server could not be reached, so nothing was done: try again once it answers',
    );
  }
  if (answer.response.ok) return { data: answer.data as T, headers: answer.response.headers };
  const body = answer.error as { error?: { code?: unknown; message?: unknown } & Record<string, unknown> } | undefined;
  const { code, message, ...details } = body?.error ?? {};
  throw new ApiError(
    answer.response.status,
    typeof code === 'string' ? code : `http_${answer.response.status}`,
    typeof message === 'string'
      ? message
      : `the server answered ${answer.response.status} ${answer.response.statusText}`,
    details,
  );
}
