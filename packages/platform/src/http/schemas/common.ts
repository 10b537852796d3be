/** Schemas every resource uses: ids, the error body, JSON Schemas. */
import { z } from '@hono/zod-openapi';
import { ID_PATTERN } from '../../types.js';

export const Id = z
  .string()
  .regex(ID_PATTERN, { error: 'must be 1 to 64 letters, digits, `_`, `-` or `.`, starting with a letter or digit' })
  .openapi({ example: 'acme' });

export const ErrorBody = z
  .object({
    error: z.object({ code: z.string(), message: z.string() }).catchall(z.unknown()),
  })
  .openapi('Error');

export const JsonSchema = z
  .record(z.string(), z.unknown())
  .openapi('JsonSchema', { description: 'A JSON Schema (2020-12)' });
