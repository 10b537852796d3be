/** Runs trusted integrations (first-party ones such as the webhook integration) in this process. */
import type { Integration, IntegrationDescriptor } from '@portico/runtime';
import {
  type Host,
  HostError,
  type HostRequest,
  type HostResponse,
  type IntegrationBundle,
  readResponse,
} from './host.js';
import { captureOutput } from './output.js';

export class InProcessHost implements Host {
  readonly kind = 'in-process' as const;
  private readonly pending = new Set<Promise<unknown>>();

  /**
   * `bindings` is the `env` each integration gets when the dispatch brings none of its own
   * (`HostRequest.bindings`): for the platform's own integrations, a service binding to the API
   * (`PORTICO_API`) that answers in this process, without a network round trip.
   */
  constructor(
    private readonly integrations: ReadonlyMap<string, Integration>,
    private readonly bindings: () => Record<string, unknown> = () => ({}),
  ) {}

  has(name: string): boolean {
    return this.integrations.has(name);
  }

  /** What a built-in integration handles, straight from its definition. */
  descriptorOf(name: string): IntegrationDescriptor | undefined {
    return this.integrations.get(name)?.descriptor;
  }

  async dispatch(bundle: IntegrationBundle, request: HostRequest): Promise<HostResponse> {
    const integration = this.integrations.get(bundle.name);
    if (integration === undefined) throw new HostError('startup', `${bundle.name} is not a built-in integration`);
    const started = performance.now();
    const executionContext = {
      waitUntil: (promise: Promise<unknown>) => {
        const tracked = promise.catch(() => {}).finally(() => this.pending.delete(tracked));
        this.pending.add(tracked);
      },
    };
    // The envelope is handed over as objects: nothing to encode here or decode there. What the
    // integration writes to `console` meanwhile is this dispatch's (AsyncLocalStorage, output.ts).
    const captured = await captureOutput(async () => {
      const response =
        request.method === 'GET'
          ? Response.json(integration.descriptor)
          : await integration.dispatch(request.envelope, request.bindings ?? this.bindings(), executionContext);
      return { response, body: await readResponse(response) };
    });
    if ('error' in captured) throw captured.error;
    const { response, body } = captured.result;
    return {
      status: response.status,
      headers: [...response.headers],
      body,
      logs: captured.logs,
      durationMs: performance.now() - started,
    };
  }

  /** Waits for the work integrations left running after their responses. */
  async close(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}
