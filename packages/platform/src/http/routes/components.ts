/** `POST /v1/installations/{id}/components/{componentId}/render`: a component's `ui_render`. */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { renderComponent } from '../../calls/integration-calls.js';
import { bearer, errorResponses, jsonAnswer, jsonBody, type RouteDeps, TAGS } from '../route.js';
import { Rendered, RenderInput } from '../schemas/installations.js';

export function componentRoutes({ ctx, dispatcher, principal }: RouteDeps): OpenAPIHono {
  const app = new OpenAPIHono();

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/components/{componentId}/render',
      operationId: 'renderComponent',
      summary: 'Render a component (ui_render), running an action first when one is given',
      tags: TAGS.installations,
      security: bearer,
      request: {
        params: z.object({ id: z.string(), componentId: z.string() }),
        body: jsonBody(RenderInput, { props: { url: 'https://example.com' }, action: { action: 'refresh' } }),
      },
      responses: { 200: jsonAnswer(Rendered), ...errorResponses },
    }),
    async (c) => {
      const { id, componentId } = c.req.valid('param');
      return c.json(
        await renderComponent(ctx, dispatcher, await principal(c), id, componentId, c.req.valid('json')),
        200,
      );
    },
  );

  return app;
}
