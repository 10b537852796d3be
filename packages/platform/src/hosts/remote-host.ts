/**
 * An integration served elsewhere: the platform POSTs the envelope to `<endpoint>/v1` (spec 4.1).
 * Its console output comes back with its answer when it was built with `@portico/runtime` and runs
 * where AsyncLocalStorage is (Node, Deno, Bun); others answer as they are, with no lines.
 */
import { OUTPUT_REQUEST_HEADER } from '@portico/runtime';
import {
  DEFAULT_DISPATCH_TIMEOUT_MS,
  type Host,
  HostError,
  type HostRequest,
  type HostResponse,
  type IntegrationBundle,
  wireRequest,
} from './host.js';
import { unframe } from './output.js';

export class RemoteHost implements Host {
  readonly kind = 'remote' as const;

  constructor(private readonly timeoutMs = DEFAULT_DISPATCH_TIMEOUT_MS) {}

  async dispatch(bundle: IntegrationBundle, request: HostRequest): Promise<HostResponse> {
    if (!bundle.endpoint) throw new HostError('startup', `${bundle.name} has no remote endpoint`);
    const url = `${bundle.endpoint.replace(/\/+$/, '')}/v1`;
    const started = performance.now();
    let response: Response;
    const wire = await wireRequest(request);
    try {
      response = await fetch(url, {
        method: wire.method,
        // An integration built with the SDK sends its console output back with its answer (framed).
        headers: { ...wire.headers, [OUTPUT_REQUEST_HEADER]: 'framed' },
        ...(wire.body ? { body: wire.body as Uint8Array<ArrayBuffer> } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      throw new HostError(
        timedOut ? 'timeout' : 'unreachable',
        timedOut
          ? `${url} did not answer within ${this.timeoutMs / 1000} s`
          : `${url} could not be reached: ${(error as Error).message}`,
      );
    }
    const answer = await unframe(response).catch((error: unknown) => {
      // The limit covers reading the answer too.
      if ((error as Error).name === 'TimeoutError')
        throw new HostError('timeout', `${url} did not finish its answer within ${this.timeoutMs / 1000} s`);
      throw error;
    });
    return { ...answer, durationMs: performance.now() - started };
  }

  async close(): Promise<void> {}
}
