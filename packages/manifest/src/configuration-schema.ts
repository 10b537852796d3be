import type { ConfigurationBlock, Manifest, PropertyDefinition } from './manifest-schema.js';
import type { ConfigurationLevel } from './vocabulary.js';

export type JsonSchema = { [key: string]: unknown };

export const JSON_SCHEMA_DRAFT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The JSON Schema (draft 2020-12) that an installation's configuration must satisfy:
 * `account` for organization installations, `site` for space and site installations.
 * Unknown properties are refused; a `button` property holds what its OAuth flow stored
 * (an object such as `{ access_token }`), so a required button means "connected".
 */
export function configurationSchema(manifest: Pick<Manifest, 'configurations'>, level: ConfigurationLevel): JsonSchema {
  const block: ConfigurationBlock | undefined = manifest.configurations?.[level];
  const properties = Object.fromEntries(
    Object.entries(block?.properties ?? {}).map(([name, property]) => [name, propertySchema(property)]),
  );
  return {
    $schema: JSON_SCHEMA_DRAFT,
    title: `${level} configuration`,
    type: 'object',
    properties,
    ...(block?.required?.length ? { required: [...new Set(block.required)] } : {}),
    additionalProperties: false,
  };
}

function propertySchema(property: PropertyDefinition): JsonSchema {
  const annotations: JsonSchema = {};
  if (property.title !== undefined) annotations.title = property.title;
  if (property.description !== undefined) annotations.description = property.description;
  switch (property.type) {
    case 'string':
      return {
        type: 'string',
        ...annotations,
        ...(property.enum ? { enum: [...property.enum] } : {}),
        ...(property.default !== undefined ? { default: property.default } : {}),
      };
    case 'number':
    case 'boolean':
      return {
        type: property.type,
        ...annotations,
        ...(property.default !== undefined ? { default: property.default } : {}),
      };
    case 'button':
      return { type: 'object', ...annotations };
  }
}
