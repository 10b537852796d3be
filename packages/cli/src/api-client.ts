/**
 * The Portico API as the commands that talk to a server use it: @portico/client's typed calls
 * (`client.call(client.portico.GET('/v1/deliveries/{id}', …))`) with the bearer token, the
 * server's `{ error: { code, message } }` turned into a ServerFailure whose message says what was
 * asked, what the server answered and, for the usual mistakes, what to check. `fetch` is for the
 * one request that is read as a stream (`tail`).
 */
import {
  createPorticoClient,
  errorOf,
  type PorticoClient,
  requestOf,
  type Answer as TypedAnswer,
} from '@portico/client';

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
  /** The typed client of the API (@portico/client), with the token; an unreachable server is a ServerFailure. */
  readonly portico: PorticoClient;

  constructor(
    /** The server's address without a trailing slash, e.g. http://127.0.0.1:8787. */
    readonly api: string,
    private readonly token: string,
    /** How the target is named in messages, e.g. `the portico dev platform of /x`. */
    readonly described = api,
  ) {
    this.portico = createPorticoClient({ baseUrl: api, token, fetch: (request) => this.reach(request) });
  }

  /** The data of a typed call's answer, else the ServerFailure that says what was refused and why. */
  async call<T>(request: Promise<TypedAnswer<T>>): Promise<T> {
    return (await this.callWithHeaders(request)).body;
  }

  /** The data of a typed call's answer with its headers (a page's cursor), else a ServerFailure. */
  async callWithHeaders<T>(request: Promise<TypedAnswer<T>>): Promise<Answer<T>> {
    const { data, error, response } = await request;
    if (response.ok) return { body: data as T, headers: response.headers };
    const [method = 'GET', path = response.url] = requestOf(response).split(' ');
    throw this.refusal(method, path, response.status, error, typeof error === 'string' ? error : '');
  }

  /** A raw request with the token (for streams); network failures become a ServerFailure. */
  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    return this.reach(
      new Request(`${this.api}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${this.token}`, ...(init.headers as Record<string, string>) },
      }),
    );
  }

  /** Sends a request as it is; a server that cannot be reached is a ServerFailure saying which. */
  private async reach(request: Request): Promise<Response> {
    try {
      return await fetch(request);
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
    const error = errorOf(parsed);
    const code = error?.code ?? 'unknown';
    const said = error?.message || text.trim().slice(0, 200) || 'no message';
    const hint =
      status === 401
        ? ` (check the token given with --token or PORTICO_TOKEN)`
        : status === 404 && code === 'not_found' && said.startsWith('no route')
          ? ` (is ${this.api} a Portico server of this version?)`
          : '';
    return new ServerFailure(`${method} ${path} was refused (${status} ${code}): ${said}${hint}`, status, code, parsed);
  }
}
