/** Schemas every resource uses: ids, the error body, JSON Schemas. */
import { z } from '@hono/zod-openapi';
import { ID_PATTERN } from '../../types.js';

export const Id = z
  .string()
  .regex(ID_PATTERN, { error: 'must be 1 to 64 letters, digits, `_`, `-` or `.`, starting with a letter or digit' })
  .openapi({ example: 'acme' });

export const ErrorBody = z
  .object({
    error: z
      .object({
        code: z.string().openapi({ description: 'What went wrong, for programs: stable, snake_case' }),
        message: z.string().openapi({ description: 'What went wrong, where, and how to fix it, for people' }),
      })
      .catchall(z.unknown()),
  })
  .openapi('Error', {
    description: 'Every error answer (4xx and 5xx)',
    example: { error: { code: 'not_found', message: 'the organization acme does not exist' } },
  });

export const JsonSchema = z
  .record(z.string(), z.unknown())
  .openapi('JsonSchema', { description: 'A JSON Schema (2020-12)' });
