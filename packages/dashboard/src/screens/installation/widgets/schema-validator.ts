/**
 * The validator the generated form hands rjsf, instead of @rjsf/validator-ajv8 (decision 056).
 * The form never validates on its own (`noValidate`): the server judges every save and its errors
 * show beside the fields. rjsf still asks a validator whether data fits a schema when it chooses
 * among `oneOf`/`anyOf` options or `if`/`then` branches; configuration schemas have none of these
 * (manifest configuration-schema.ts: flat properties of string, number, boolean, object), so this
 * small structural check (type, enum, required, properties) answers those questions without Ajv's
 * 140 kB on the installation page's first load.
 */
import type { RJSFSchema, ValidationData, ValidatorType } from '@rjsf/utils';

type Schema = RJSFSchema | boolean;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Whether `data` fits `schema` as far as type, enum, required and properties say. */
export function fits(schema: Schema | undefined, data: unknown): boolean {
  if (schema === undefined || schema === true) return true;
  if (schema === false) return false;
  if (schema.type !== undefined && data !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const actual = typeOf(data);
    if (!types.some((type) => type === actual || (type === 'number' && actual === 'integer'))) return false;
  }
  if (schema.const !== undefined && JSON.stringify(schema.const) !== JSON.stringify(data)) return false;
  if (schema.enum && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(data))) return false;
  if (typeOf(data) === 'object') {
    const record = data as Record<string, unknown>;
    if (schema.required?.some((name) => record[name] === undefined)) return false;
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (record[name] !== undefined && !fits(property as Schema, record[name])) return false;
    }
  }
  return true;
}

export const schemaValidator: ValidatorType = {
  validateFormData(): ValidationData<unknown> {
    return { errors: [], errorSchema: {} };
  },
  isValid(schema, formData) {
    return fits(schema, formData);
  },
  rawValidation(schema, formData) {
    return fits(schema, formData) ? { errors: [] } : { errors: [{ message: 'does not match the schema' } as never] };
  },
};
