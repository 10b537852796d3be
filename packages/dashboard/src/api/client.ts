/**
 * The API client, typed from the platform's OpenAPI document (api/generated/schema.d.ts is written by
 * `npm run generate` from the platform's routes; never edit it by hand). Requests carry the session
 * cookie; every request that changes something also carries the session's CSRF token.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './generated/schema';

export type Schemas = components['schemas'];

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

export const api = createClient<paths>({ baseUrl: globalThis.location?.origin ?? '', credentials: 'same-origin' });
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
