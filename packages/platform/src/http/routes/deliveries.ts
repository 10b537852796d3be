/**
 * Webhook deliveries (`/v1/installations/{id}/deliveries`, `/v1/deliveries/{id}…`): asking the
 * delivery engine for one, listing and reading them with their attempts, redelivering, the
 * endpoints an installation delivers to (their health, enabling a disabled one), the signing
 * secrets, and the test delivery.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { listDeliveries, redeliver, requestDelivery } from '../../delivery/deliveries.js';
import { enableEndpoint, listEndpoints } from '../../delivery/endpoints.js';
import { revealSecrets, rotateSecretOf } from '../../delivery/signing-secrets.js';
import { createSubscription, removeSubscription, updateSubscription } from '../../delivery/subscriptions.js';
import { sendTestDelivery } from '../../delivery/test-delivery.js';
import { getDelivery } from '../../events/trace.js';
import { bearer, errorResponses, jsonAnswer, jsonBody, type RouteDeps, TAGS } from '../route.js';
import {
  Delivery,
  DeliveryInput,
  Endpoint,
  SigningSecret,
  SubscriptionInput,
  SubscriptionPatch,
  TestDelivery,
  WithInstallation,
} from '../schemas/deliveries.js';

const tags = TAGS.deliveries;

export function deliveryRoutes({ ctx, principal }: Pick<RouteDeps, 'ctx' | 'principal'>): OpenAPIHono {
  const app = new OpenAPIHono();

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/deliveries',
      operationId: 'createDelivery',
      summary:
        'Ask the delivery engine to deliver a signed JSON body to a URL (the installation itself, or its organization)',
      tags,
      security: bearer,
      request: {
        params: z.object({ id: z.string() }),
        body: jsonBody(DeliveryInput, {
          url: 'https://example.com/webhooks',
          eventId: 'order-1042',
          type: 'order_shipped',
          payload: { orderId: 1042 },
        }),
      },
      responses: { 202: jsonAnswer(z.object({ id: z.string(), status: z.string() })), ...errorResponses },
    }),
    async (c) => {
      return c.json(await requestDelivery(ctx, await principal(c), c.req.valid('param').id, c.req.valid('json')), 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/installations/{id}/deliveries',
      operationId: 'listDeliveries',
      summary: 'Deliveries with their attempts, newest first; the next page’s cursor is in X-Next-Cursor',
      tags,
      security: bearer,
      request: {
        params: z.object({ id: z.string() }),
        query: z.object({
          status: z.enum(['pending', 'delivered', 'failed']).optional(),
          eventId: z.string().optional(),
          limit: z.coerce.number().int().min(1).max(200).optional(),
          cursor: z.string().optional(),
          latest: z.enum(['true', 'false']).optional().openapi({
            description:
              'true: only the latest delivery of each event and URL (one redelivered since is left out, so its redelivery decides the status filter)',
          }),
        }),
      },
      responses: { 200: jsonAnswer(z.array(Delivery)), ...errorResponses },
    }),
    async (c) => {
      const { latest, ...query } = c.req.valid('query');
      const page = await listDeliveries(ctx, await principal(c), c.req.valid('param').id, {
        ...query,
        latest: latest === 'true',
      });
      if (page.nextCursor) c.header('x-next-cursor', page.nextCursor);
      return c.json(page.deliveries, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/installations/{id}/endpoints',
      operationId: 'listEndpoints',
      summary:
        'The URLs this installation delivers to: its subscriptions (the configured one first) and the URLs deliveries went to, with their health (failures in a row, last success) and whether they are disabled',
      tags,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: jsonAnswer(z.array(Endpoint)), ...errorResponses },
    }),
    async (c) => c.json(await listEndpoints(ctx, await principal(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/endpoints',
      operationId: 'createSubscription',
      summary:
        'Subscribe another URL (a webhook installation in a space or site, admins): each event of the selected types is delivered to it, with its own headers, policy and health',
      tags,
      security: bearer,
      request: {
        params: z.object({ id: z.string() }),
        body: jsonBody(SubscriptionInput, {
          url: 'https://example.com/webhooks',
          eventTypes: ['space_content_updated'],
          policy: 'standard',
        }),
      },
      responses: { 201: jsonAnswer(Endpoint), ...errorResponses },
    }),
    async (c) =>
      c.json(await createSubscription(ctx, await principal(c), c.req.valid('param').id, c.req.valid('json')), 201),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/v1/installations/{id}/endpoints/{endpointId}',
      operationId: 'updateSubscription',
      summary:
        'Change a subscription (admins): its URL (what it was owed is redelivered to the new one), event types, headers, policy, rate limit, or switch it on or off. The configured one changes with the configuration, but for its rate limit',
      tags,
      security: bearer,
      request: {
        params: z.object({ id: z.string(), endpointId: z.string() }),
        body: jsonBody(SubscriptionPatch, { eventTypes: ['space_content_updated', 'page_feedback'], enabled: true }),
      },
      responses: { 200: jsonAnswer(Endpoint), ...errorResponses },
    }),
    async (c) => {
      const { id, endpointId } = c.req.valid('param');
      return c.json(await updateSubscription(ctx, await principal(c), id, endpointId, c.req.valid('json')), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/installations/{id}/endpoints/{endpointId}',
      operationId: 'deleteSubscription',
      summary:
        'Remove a subscription (admins): nothing more is delivered to it; its deliveries stay in the log. The configured one is removed by clearing the configuration’s url',
      tags,
      security: bearer,
      request: { params: z.object({ id: z.string(), endpointId: z.string() }) },
      responses: { 204: { description: 'Removed' }, ...errorResponses },
    }),
    async (c) => {
      const { id, endpointId } = c.req.valid('param');
      await removeSubscription(ctx, await principal(c), id, endpointId);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/endpoints/{endpointId}/enable',
      operationId: 'enableEndpoint',
      summary:
        'Enable a disabled endpoint: new deliveries go to it again (redeliver what failed while it was disabled)',
      tags,
      security: bearer,
      request: { params: z.object({ id: z.string(), endpointId: z.string() }) },
      responses: { 200: jsonAnswer(Endpoint), ...errorResponses },
    }),
    async (c) => {
      const { id, endpointId } = c.req.valid('param');
      return c.json(await enableEndpoint(ctx, await principal(c), id, endpointId), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/deliveries/{id}/redeliver',
      operationId: 'redeliverDelivery',
      summary: 'Deliver again: a new delivery with the same body and eventId',
      tags,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 202: jsonAnswer(Delivery), ...errorResponses },
    }),
    async (c) => c.json(await redeliver(ctx, await principal(c), c.req.valid('param').id), 202),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/deliveries/{id}',
      operationId: 'getDelivery',
      summary: 'One delivery with its attempts and its installation',
      tags,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: jsonAnswer(Delivery.extend(WithInstallation.shape)), ...errorResponses },
    }),
    async (c) => c.json(await getDelivery(ctx, await principal(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/installations/{id}/signing-secret',
      operationId: 'getSigningSecret',
      summary:
        'The current signing secret of X-Platform-Signature and the Standard Webhooks headers (created on first use), and the previous ones still signing after a rotation',
      tags,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: jsonAnswer(SigningSecret), ...errorResponses },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      return c.json(await revealSecrets(ctx, await principal(c), id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/signing-secret/rotate',
      operationId: 'rotateSigningSecret',
      summary: 'Make a new signing secret current; the previous one keeps signing for 24 h',
      tags,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: jsonAnswer(SigningSecret), ...errorResponses },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      return c.json(await rotateSecretOf(ctx, await principal(c), id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/test-delivery',
      operationId: 'sendTestDelivery',
      summary:
        'Send test event: a signed example `{ eventId, type: "webhook_test", installationId, test: true }` to the configured URL, through the delivery engine',
      tags,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 202: jsonAnswer(TestDelivery), ...errorResponses },
    }),
    async (c) => c.json(await sendTestDelivery(ctx, await principal(c), c.req.valid('param').id), 202),
  );

  return app;
}
