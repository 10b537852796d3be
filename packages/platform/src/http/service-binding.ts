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

/** A `fetch` for an in-process integration's binding; `grant` when it serves an event dispatch. */
export function serviceBinding(options: ServiceBindingOptions, grant?: DispatchGrant) {
  const { ctx, adminToken, app } = options;
  const principal = (request: Request): Promise<Principal> | Principal => {
    const header = request.headers.get('authorization') ?? undefined;
    if (grant !== undefined && header === `Bearer ${grant.token}`) return grant.principal;
    return principalOf(ctx, credentialsOf(adminToken, header));
  };
  return {
    async fetch(request: Request): Promise<Response> {
      const match = request.method === 'POST' ? DELIVERIES.exec(new URL(request.url).pathname) : null;
      if (match === null) return app.fetch(request);
      try {
        const input = DeliveryInput.safeParse(await request.json().catch(() => undefined));
        if (!input.success)
          throw new DomainError('invalid', 'invalid_request', describeValidationError('json', input.error));
        const installationId = decodeURIComponent(match[1] as string);
        const answer = await requestDelivery(
          ctx,
          await principal(request),
          installationId,
          input.data,
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
