/** A request its route's schemas refuse is answered 400 `invalid_request`, naming each bad field. */
import type { Hook } from '@hono/zod-openapi';
import { describeValidationError } from '../validation-error.js';

// biome-ignore lint/suspicious/noExplicitAny: the hook serves every route, whatever its schemas.
export const validationHook: Hook<any, any, any, any> = (result, c) => {
  if (!result.success) {
    return c.json(
      { error: { code: 'invalid_request', message: describeValidationError(result.target, result.error) } },
      400,
    );
  }
};
