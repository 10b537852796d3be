/**
 * The Portico API as `portico dev` calls its own platform: @portico/client's typed calls with a
 * token, a refusal turned into the client's PorticoError, which names the request and what the
 * server said.
 */
import {
  createPorticoClient,
  type PorticoClient,
  PorticoError,
  type Answer as TypedAnswer,
  unwrap,
} from '@portico/client';

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

  /** The data of a 2xx answer to a typed call (`client.call(client.portico.GET(…))`), else a PorticoError. */
  call<T>(request: Promise<TypedAnswer<T>>): Promise<T> {
    return unwrap(request);
  }

  /** Like `call`, but a 409 (it exists already) answers undefined. */
  async create<T>(request: Promise<TypedAnswer<T>>): Promise<T | undefined> {
    try {
      return await this.call(request);
    } catch (error) {
      if (error instanceof PorticoError && error.status === 409) return undefined;
      throw error;
    }
  }
}
