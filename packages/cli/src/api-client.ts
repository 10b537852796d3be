/**
 * The Portico API as the commands that talk to a server use it: JSON in and out with the bearer
 * token, the server's `{ error: { code, message } }` turned into a ServerFailure whose message
 * says what was asked, what the server answered and, for the usual mistakes, what to check.
 */

export class ServerFailure extends Error {
  constructor(
    message: string,
    /** The HTTP status, or 0 when the server could not be reached. */
    readonly status: number,
    readonly code: string,
    /** The error body as the server sent it (`{ error: { code, message, … } }`), if any. */
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'ServerFailure';
  }
}

export interface Answer<T> {
  body: T;
  headers: Headers;
}

export class ApiClient {
  constructor(
    /** The server's address without a trailing slash, e.g. http://127.0.0.1:8787. */
    readonly api: string,
    private readonly token: string,
    /** How the target is named in messages, e.g. `the portico dev platform of /x`. */
    readonly described = api,
  ) {}

  async get<T>(path: string): Promise<T> {
    return (await this.request<T>('GET', path)).body;
  }

  async send<T>(method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    return (await this.request<T>(method, path, body)).body;
  }

  /** Sends a request; answers the parsed body of a 2xx answer with its headers, else throws a ServerFailure. */
  async request<T>(method: string, path: string, body?: unknown): Promise<Answer<T>> {
    const response = await this.fetch(path, {
      method,
      headers: body !== undefined ? { 'content-type': 'application/json' } : {},
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) throw this.refusal(method, path, response.status, parsed, text);
    return { body: parsed as T, headers: response.headers };
  }

  /** A raw request with the token (for streams); network failures become a ServerFailure. */
  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    try {
      return await fetch(`${this.api}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${this.token}`, ...(init.headers as Record<string, string>) },
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ServerFailure(
        `could not reach ${this.described} (${cause?.code ?? cause?.message ?? (error as Error).message}): is the server running at ${this.api}?`,
        0,
        'unreachable',
      );
    }
  }

  /** The ServerFailure for a refused request. */
  refusal(method: string, path: string, status: number, parsed: unknown, text = ''): ServerFailure {
    const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
    const code = error?.code ?? 'unknown';
    const said = error?.message ?? (text.trim().slice(0, 200) || 'no message');
    const hint =
      status === 401
        ? ` (check the token given with --token or PORTICO_TOKEN)`
        : status === 404 && code === 'not_found' && said.startsWith('no route')
          ? ` (is ${this.api} a Portico server of this version?)`
          : '';
    return new ServerFailure(`${method} ${path} was refused (${status} ${code}): ${said}${hint}`, status, code, parsed);
  }
}

/** A path segment from user input, escaped. */
export const segment = (value: string) => encodeURIComponent(value);
