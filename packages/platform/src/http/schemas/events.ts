/** Platform events as they are ingested, one or a batch. */
import { z } from '@hono/zod-openapi';
import { Id } from './common.js';

const Visitor = z.strictObject({
  anonymousId: z.string(),
  userAgent: z.string(),
  ip: z.string(),
  cookies: z.record(z.string(), z.string()),
});

const EventId = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .openapi({ description: 'Unique per event; a repeated eventId is accepted once' });

const spaceEvent = <T extends string, S extends z.ZodRawShape>(type: T, fields: S) =>
  z.strictObject({ type: z.literal(type), eventId: EventId, spaceId: Id, ...fields });

export const EventInput = z
  .discriminatedUnion('type', [
    spaceEvent('space_content_updated', { revisionId: z.string().min(1) }),
    spaceEvent('space_view', {
      visitor: Visitor.optional(),
      url: z.string().optional(),
      referrer: z.string().optional(),
    }),
    spaceEvent('space_visibility_updated', { visibility: z.string().optional() }),
    spaceEvent('space_gitsync_started', { revisionId: z.string().optional() }),
    spaceEvent('space_gitsync_completed', {
      revisionId: z.string().optional(),
      state: z.enum(['success', 'failure']).optional(),
    }),
    z.strictObject({
      type: z.literal('site_view'),
      eventId: EventId,
      siteId: Id,
      visitor: Visitor,
      url: z.string(),
      referrer: z.string(),
    }),
    z.strictObject({
      type: z.literal('page_feedback'),
      eventId: EventId,
      siteId: Id,
      spaceId: Id,
      pageId: z.string().min(1),
      feedback: z.strictObject({ rating: z.string(), comment: z.string() }),
      visitor: Visitor,
      url: z.string(),
      referrer: z.string(),
    }),
  ])
  .openapi('EventInput');

export const EventAccepted = z.object({ eventId: z.string(), duplicate: z.boolean() }).openapi('EventAccepted');

/** Most events one batch may carry. */
export const MAX_BATCH_EVENTS = 1000;

export const EventBatchInput = z
  .strictObject({
    // Each event is checked on its own (an invalid one gets its own error), so any object is taken here.
    events: z
      .array(z.record(z.string(), z.unknown()).openapi({ $ref: '#/components/schemas/EventInput' } as never))
      .min(1)
      .max(MAX_BATCH_EVENTS),
  })
  .openapi('EventBatchInput');

export const EventBatchResult = z
  .object({
    results: z.array(
      z.union([EventAccepted, z.object({ error: z.object({ code: z.string(), message: z.string() }) })]),
    ),
  })
  .openapi('EventBatchResult', { description: 'One result per event, in the order sent' });
