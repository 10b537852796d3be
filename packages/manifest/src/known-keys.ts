import type { z } from 'zod';
import { propertySchema } from './manifest-schema.js';
import type { PathSegment } from './problem.js';
import type { KnownKeys } from './schema-issues.js';
import { isRecord, lookup } from './schema-issues.js';

type AnySchema = z.core.$ZodType;
type Def = {
  type: string;
  innerType?: AnySchema;
  shape?: Record<string, AnySchema>;
  element?: AnySchema;
  valueType?: AnySchema;
  options?: AnySchema[];
  discriminator?: string;
  in?: AnySchema;
};

const defOf = (schema: AnySchema) => schema._zod.def as unknown as Def;

/** Walks the manifest schema alongside the data to list the keys each object accepts. */
export function knownKeysOf(root: AnySchema, value: unknown): KnownKeys {
  return {
    at(path) {
      const schema = schemaAt(root, value, path);
      const shape = schema && shapeOf(schema, lookup(value, path));
      return shape ? Object.keys(shape) : [];
    },
    typesAccepting(key) {
      return (defOf(propertySchema).options ?? [])
        .map((option) => shapeOf(option, undefined))
        .filter((shape) => shape !== undefined && key in shape)
        .map((shape) => literalOf(shape?.type))
        .filter((type): type is string => type !== undefined);
    },
  };
}

function schemaAt(root: AnySchema, value: unknown, path: readonly PathSegment[]): AnySchema | undefined {
  let schema: AnySchema | undefined = root;
  for (const [index, segment] of path.entries()) {
    if (schema === undefined) return undefined;
    schema = unwrap(schema);
    const def = defOf(schema);
    const here = lookup(value, path.slice(0, index));
    if (def.type === 'union') schema = chooseOption(def, here);
    if (schema === undefined) return undefined;
    const inner = defOf(schema);
    if (inner.type === 'object') schema = inner.shape?.[String(segment)];
    else if (inner.type === 'array') schema = inner.element;
    else if (inner.type === 'record') schema = inner.valueType;
    else return undefined;
  }
  return schema;
}

function shapeOf(schema: AnySchema, data: unknown): Record<string, AnySchema> | undefined {
  let current: AnySchema | undefined = unwrap(schema);
  const def = defOf(current);
  if (def.type === 'union') current = chooseOption(def, data);
  return current === undefined ? undefined : defOf(current).shape;
}

function chooseOption(def: Def, data: unknown): AnySchema | undefined {
  const discriminator = def.discriminator;
  if (discriminator === undefined || !isRecord(data)) return undefined;
  return def.options?.find((option) => literalOf(defOf(option).shape?.[discriminator]) === data[discriminator]);
}

function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (def.innerType !== undefined) current = def.innerType;
    else if (def.type === 'pipe' && def.in !== undefined) current = def.in;
    else return current;
  }
}

function literalOf(schema: AnySchema | undefined): string | undefined {
  if (schema === undefined) return undefined;
  const values = (schema._zod.def as unknown as { values?: unknown[] }).values;
  return typeof values?.[0] === 'string' ? values[0] : undefined;
}
