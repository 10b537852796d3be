/** A small JSON client of the Portico API, for the calls `portico dev` makes to its own platform. */

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
  constructor(
    readonly url: string,
    private readonly token: string,
  ) {}

  /** The same client with another token. */
  as(token: string): PlatformClient {
    return new PlatformClient(this.url, token);
  }

  /** Sends a request; answers the JSON body of a 2xx answer, throws an ApiFailure otherwise. */
  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    const parsed = text === '' ? undefined : safeJson(text);
    if (!response.ok) {
      const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new ApiFailure(
        response.status,
        error?.code ?? 'unknown',
        `${method} ${path} answered ${response.status}: ${error?.message ?? text.slice(0, 200)}`,
        parsed,
      );
    }
    return parsed as T;
  }

  /** Like `call`, but a 409 (it exists already) answers undefined. */
  async create<T = unknown>(path: string, body?: unknown): Promise<T | undefined> {
    try {
      return await this.call<T>('POST', path, body);
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 409) return undefined;
      throw error;
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
