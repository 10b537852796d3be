/** Webhook deliveries, their endpoints and signing secrets. */
import { z } from '@hono/zod-openapi';

export const Endpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    destination: z.string().openapi({ description: 'scheme://host:port' }),
    state: z.enum(['healthy', 'failing', 'disabled']),
    consecutiveFailures: z.number(),
    failingSince: z.string().nullable(),
    lastSuccessAt: z.string().nullable(),
    lastFailureAt: z.string().nullable(),
    lastError: z.string().nullable(),
    disabledAt: z.string().nullable(),
    disabledReason: z.string().nullable(),
    subscribed: z.boolean().openapi({
      description:
        'A webhook subscription: each event of a selected type is delivered to it when the event is accepted. Otherwise only a URL deliveries went to',
    }),
    fromConfiguration: z
      .boolean()
      .openapi({ description: 'The subscription the configuration form edits (url, event switches, headers, policy)' }),
    eventTypes: z.array(z.string()),
    headers: z.record(z.string(), z.string()),
    policy: z.string().nullable().openapi({ description: 'The delivery policy; null: the default, standard' }),
    enabled: z.boolean().openapi({ description: 'false: switched off by a person, nothing is delivered to it' }),
    rateLimit: z.number().int().nullable().openapi({
      description:
        'Most deliveries per second it is sent (bursts of one second’s worth), counted by each node; null: no limit but the concurrency caps',
    }),
  })
  .openapi('Endpoint');

const subscriptionFields = {
  url: z.string().min(1).openapi({ example: 'https://example.com/webhooks' }),
  eventTypes: z.array(z.string()).openapi({
    description: 'The event types it receives, of those the place offers',
    example: ['space_content_updated'],
  }),
  headers: z.record(z.string(), z.unknown()).openapi({
    description:
      'Headers of your own (name to value) sent with every attempt; not Content-Type, User-Agent, X-Platform-* or webhook-*',
  }),
  policy: z
    .string()
    .nullable()
    .openapi({ description: '`standard` or `extended`; null: the default', example: 'standard' }),
  enabled: z.boolean(),
  rateLimit: z.number().nullable().openapi({
    description:
      'Most deliveries per second, a whole number from 1 to 10,000 (bursts of one second’s worth; retries are not held back); null: no limit. The configured endpoint takes this field alone',
    example: 10,
  }),
};

export const SubscriptionInput = z
  .strictObject({
    ...subscriptionFields,
    headers: subscriptionFields.headers.optional(),
    policy: subscriptionFields.policy.optional(),
    enabled: subscriptionFields.enabled.optional(),
    rateLimit: subscriptionFields.rateLimit.optional(),
  })
  .openapi('SubscriptionInput');

export const SubscriptionPatch = z
  .strictObject({
    url: subscriptionFields.url.optional(),
    eventTypes: subscriptionFields.eventTypes.optional(),
    headers: subscriptionFields.headers.optional(),
    policy: subscriptionFields.policy.optional(),
    enabled: subscriptionFields.enabled.optional(),
    rateLimit: subscriptionFields.rateLimit.optional(),
  })
  .openapi('SubscriptionPatch');

export const DeliveryInput = z
  .strictObject({
    url: z.string().min(1),
    eventId: z.string().min(1).max(200),
    type: z.string().min(1).max(100),
    payload: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'The JSON body to deliver, byte for byte on every attempt' }),
    headers: z.record(z.string(), z.unknown()).optional().openapi({
      description:
        'Headers of your own (name to value) sent with every attempt, such as an Authorization a gateway asks for. Refused with 400 invalid_headers when a name is not a header name, or is one the platform sets (Content-Type, User-Agent, X-Platform-*, webhook-*, Content-Length, Host, …), or a value is not printable ASCII on one line; at most 20, 4 KiB in all',
    }),
    policy: z.string().optional().openapi({
      description:
        'The delivery policy it is retried under: `standard` (the default: retries after 1, 2 and 4 s) or `extended` (5 s doubling up to every 2 h, 43 attempts within 3 days). Refused with 400 invalid_delivery_policy otherwise',
      example: 'extended',
    }),
  })
  .openapi('DeliveryInput');

/** What a read across installations adds to each item. */
export const WithInstallation = z.object({ installationId: z.string() });

export const Delivery = z
  .object({
    id: z.string(),
    eventId: z.string(),
    type: z.string(),
    url: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    createdAt: z.string(),
    nextAttemptAt: z.string().nullable(),
    lastError: z.string().nullable(),
    redeliveryOf: z.string().nullable(),
    endpointId: z.string().nullable(),
    policy: z.string().openapi({ description: 'The delivery policy it is retried under: `standard` or `extended`' }),
    attempts: z.array(
      z.object({
        number: z.number(),
        at: z.string(),
        status: z.number().nullable(),
        durationMs: z.number(),
        error: z.string().nullable(),
        response: z.string().nullable(),
      }),
    ),
  })
  .openapi('Delivery');

export const SigningSecret = z
  .object({
    secret: z.string().openapi({ description: 'The current secret: it signs every delivery' }),
    previous: z
      .array(z.object({ secret: z.string(), expiresAt: z.string() }))
      .openapi({ description: 'Secrets replaced by a rotation that still sign until expiresAt (24 h), newest first' }),
  })
  .openapi('SigningSecret');

export const TestDelivery = z
  .object({ id: z.string(), status: z.string(), eventId: z.string(), url: z.string() })
  .openapi('TestDelivery', { description: 'The test delivery: follow it in GET /v1/installations/{id}/deliveries' });

export const TroubledEndpoint = Endpoint.extend({
  installation: z
    .object({
      id: z.string(),
      integration: z.string(),
      organization: z.object({ id: z.string(), title: z.string() }),
      target: z.object({
        type: z.enum(['organization', 'space', 'site']),
        id: z.string(),
        title: z.string().nullable().openapi({ description: 'The space or site title (null for an organization)' }),
      }),
    })
    .openapi({ description: 'The installation the endpoint belongs to, and where it is installed' }),
}).openapi('TroubledEndpoint');
