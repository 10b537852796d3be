/**
 * The `PORTICO_API` service binding of integrations that run in this process (the built-in webhook
 * integration): the call an event dispatch makes, asking for a delivery, reaches the delivery
 * service as a typed call, without going through the HTTP app a second time. Made during an event
 * dispatch with that dispatch's token, it acts as the installation the dispatch read (decision
 * 028: no token lookup). Its answer is not held until the write is on disk: it stays in this
 * process, and what the integration does with it is written after it (a power loss loses both,
 * and the dispatch goes out again). Every other call goes to the HTTP app like any request.
 */

import { credentialsOf, principalOf } from '../access/auth.js';
import { requestDelivery } from '../delivery/deliveries.js';
import { DomainError } from '../errors/domain-error.js';
import type { DispatchGrant, Principal, ServiceContext } from '../types.js';
import { errorResponse } from './on-error.js';
import { DeliveryInput } from './schemas/deliveries.js';
import { describeValidationError } from './validation-error.js';

const DELIVERIES = /^\/v1\/installations\/([^/]+)\/deliveries$/;

export interface ServiceBindingOptions {
  ctx: ServiceContext;
  adminToken: string;
  /** Where every other call goes: the HTTP app. */
  app: { fetch(request: Request): Response | Promise<Response> };
}

/** A call as the binding reads it: from a `Request`, or from `fetch(url, init)`'s arguments as given. */
interface Call {
  method: string;
  url: string;
  headers: Headers;
  json(): Promise<unknown>;
}

/**
 * `fetch(url, init)` with a text body (what the SDK's API client sends) is read as it is: building
 * a `Request` and reading it back cost 34–42 µs of CPU per call, against 12–15 µs so (BENCHMARKS.md).
 * Anything else becomes a `Request`.
 */
function callOf(input: Request | string | URL, init: RequestInit | undefined): Call | Request {
  if (typeof input !== 'string' || (init?.body != null && typeof init.body !== 'string'))
    return new Request(input, init);
  const body = init?.body ?? undefined;
  return {
    method: (init?.method ?? 'GET').toUpperCase(),
    url: input,
    headers: init?.headers instanceof Headers ? init.headers : new Headers(init?.headers),
    json: async () => JSON.parse(body ?? ''),
  };
}

/** A `fetch` for an in-process integration's binding; `grant` when it serves an event dispatch. */
export function serviceBinding(options: ServiceBindingOptions, grant?: DispatchGrant) {
  const { ctx, adminToken, app } = options;
  const principal = (call: Call): Promise<Principal> | Principal => {
    const header = call.headers.get('authorization') ?? undefined;
    if (grant !== undefined && header === `Bearer ${grant.token}`) return grant.principal;
    return principalOf(ctx, credentialsOf(adminToken, header));
  };
  return {
    async fetch(input: Request | string | URL, init?: RequestInit): Promise<Response> {
      const call = callOf(input, init);
      const match = call.method === 'POST' ? DELIVERIES.exec(new URL(call.url).pathname) : null;
      if (match === null) return app.fetch(call instanceof Request ? call : new Request(input, init));
      try {
        const parsed = DeliveryInput.safeParse(await call.json().catch(() => undefined));
        if (!parsed.success)
          throw new DomainError('invalid', 'invalid_request', describeValidationError('json', parsed.error));
        const installationId = decodeURIComponent(match[1] as string);
        const answer = await requestDelivery(
          ctx,
          await principal(call),
          installationId,
          parsed.data,
          // What the dispatch read of the installation's endpoints, when the call is its own.
          grant?.principal.installationId === installationId ? grant.deliveryTargets : undefined,
        );
        return Response.json(answer, { status: 202 });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return errorResponse(error);
      }
    },
  };
}
