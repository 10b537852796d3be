import { z } from 'zod';
import type { JsonSchema } from './configuration-schema.js';
import { manifestSchema } from './manifest-schema.js';

/**
 * The JSON Schema of `platform-manifest.yaml` for editors (yaml-language-server), generated
 * from the same Zod schema the validator uses. Rules that relate several values (unique ids,
 * internal scopes, files on disk) are only checked by `portico check`.
 */
export function manifestJsonSchema(): JsonSchema {
  const generated = z.toJSONSchema(manifestSchema, { target: 'draft-2020-12', io: 'input' }) as JsonSchema;
  const { $schema, ...rest } = generated;
  return { $schema, title: 'Portico integration manifest', ...rest };
}
