/** An integration served elsewhere: the platform POSTs the envelope to `<endpoint>/v1` (spec 4.1). */
import {
  DEFAULT_DISPATCH_TIMEOUT_MS,
  type Host,
  HostError,
  type HostRequest,
  type HostResponse,
  type IntegrationBundle,
  readResponse,
  wireRequest,
} from './host.js';

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
        headers: wire.headers,
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
    const body = await readResponse(response);
    return {
      status: response.status,
      headers: [...response.headers],
      body,
      logs: [],
      durationMs: performance.now() - started,
    };
  }

  async close(): Promise<void> {}
}
