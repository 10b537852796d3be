/** `POST /v1/installations/{id}/completions/{property}`: the options of a dropdown the integration fills. */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { complete } from '../../calls/completions.js';
import { bearer, errorResponses, jsonAnswer, jsonBody, type RouteDeps, TAGS } from '../route.js';

const CompletionInput = z
  .strictObject({
    configuration: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: 'The form’s values, saved or not; they replace the stored ones for this call' }),
    query: z.string().max(1000).optional().openapi({ description: 'What the person typed so far' }),
  })
  .openapi('CompletionInput');

const Completion = z
  .object({
    options: z.array(z.object({ value: z.string(), label: z.string() })),
    truncated: z.boolean().openapi({ description: 'The integration answered more than 1,000; the rest are left out' }),
  })
  .openapi('Completion');

export function completionRoutes({ ctx, dispatcher, principal }: RouteDeps): OpenAPIHono {
  const app = new OpenAPIHono();

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/completions/{property}',
      operationId: 'completeProperty',
      summary:
        'The options of a string property with a completion_url: the platform POSTs { property, configuration, query } to that path of the integration (through its public fetch, with X-Portico-Completion) and answers its options',
      tags: TAGS.installations,
      security: bearer,
      request: {
        params: z.object({ id: z.string(), property: z.string() }),
        body: { ...jsonBody(CompletionInput, { configuration: { project: 'docs' }, query: 'ma' }), required: false },
      },
      responses: { 200: jsonAnswer(Completion), ...errorResponses },
    }),
    async (c) => {
      const { id, property } = c.req.valid('param');
      const input = c.req.header('content-length') === '0' || !c.req.header('content-type') ? {} : c.req.valid('json');
      return c.json(await complete(ctx, dispatcher, await principal(c), id, property, input), 200);
    },
  );

  return app;
}
