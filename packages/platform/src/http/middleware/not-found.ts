/** The answer to a path no route serves: the API's error body, pointing at the document. */
import type { NotFoundHandler } from 'hono';

export const notFound: NotFoundHandler = (c) =>
  c.json(
    { error: { code: 'not_found', message: `no route ${c.req.method} ${c.req.path}; see /v1/openapi.json` } },
    404,
  );
