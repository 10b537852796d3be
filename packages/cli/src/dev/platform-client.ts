/**
 * The Portico API as `portico dev` calls its own platform: @portico/client's typed calls with a
 * token, a refusal turned into an ApiFailure that names the request and what the server said.
 */
import {
  createPorticoClient,
  errorOf,
  type PorticoClient,
  requestOf,
  type Answer as TypedAnswer,
} from '@portico/client';

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The whole error body (`{ error: { code, message, … } }`). */
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

export class PlatformClient {
  /** The typed client of the API, with this token. */
  readonly portico: PorticoClient;

  constructor(
    readonly url: string,
    token: string,
  ) {
    this.portico = createPorticoClient({ baseUrl: url, token });
  }

  /** The same client with another token. */
  as(token: string): PlatformClient {
    return new PlatformClient(this.url, token);
  }

  /** The data of a 2xx answer to a typed call (`client.call(client.portico.GET(…))`), else an ApiFailure. */
  async call<T>(request: Promise<TypedAnswer<T>>): Promise<T> {
    const { data, error, response } = await request;
    if (response.ok) return data as T;
    const said = errorOf(error);
    throw new ApiFailure(
      response.status,
      said?.code ?? 'unknown',
      `${requestOf(response)} answered ${response.status}: ${said?.message ?? String(error ?? '').slice(0, 200)}`,
      error,
    );
  }

  /** Like `call`, but a 409 (it exists already) answers undefined. */
  async create<T>(request: Promise<TypedAnswer<T>>): Promise<T | undefined> {
    try {
      return await this.call(request);
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 409) return undefined;
      throw error;
    }
  }
}
