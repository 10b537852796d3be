/**
 * Property-based tests: whatever text arrives, parseManifest answers with a result, never an
 * exception, and every failure is an error positioned inside the text.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { parseManifest } from './parse-manifest.js';

const example = readFileSync(new URL('../../../examples/hello-world/platform-manifest.yaml', import.meta.url), 'utf8');
const exampleValue = parse(example) as Record<string, unknown>;

function assertWellFormed(text: string): void {
  let result: ReturnType<typeof parseManifest>;
  try {
    result = parseManifest(text);
  } catch (error) {
    throw new Error(`parseManifest threw for ${JSON.stringify(text.slice(0, 200))}: ${String(error)}`);
  }
  if (result.ok) {
    expect(result.errors).toEqual([]);
    return;
  }
  expect(result.errors.length).toBeGreaterThan(0);
  const lines = text.split(/\r\n|\r|\n/).length;
  for (const error of result.errors) {
    expect(typeof error.path).toBe('string');
    expect(error.message.length).toBeGreaterThan(10);
    expect(Number.isInteger(error.line) && error.line >= 1 && error.line <= lines).toBe(true);
    expect(Number.isInteger(error.column) && error.column >= 1).toBe(true);
  }
}

type Edit =
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'duplicate-line'; at: number }
  | { kind: 'swap-lines'; at: number; with: number };

/** An edit of the example's text: delete, insert, duplicate or swap some of it. */
const mutation: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom(':', '- ', '[', '{', '}', ']', '&a ', '*a', '!!str ', '"', "'", '#', '\t', '\n  ', '---\n', '? '),
    ),
  }),
  fc.record({ kind: fc.constant('duplicate-line' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap-lines' as const), at: fc.nat(), with: fc.nat() }),
);

function mutate(text: string, edits: readonly Edit[]): string {
  let out = text;
  for (const edit of edits) {
    const at = out.length === 0 ? 0 : edit.at % out.length;
    const lines = out.split('\n');
    const line = lines.length === 0 ? 0 : edit.at % lines.length;
    switch (edit.kind) {
      case 'delete':
        out = out.slice(0, at) + out.slice(at + edit.length);
        break;
      case 'insert':
        out = out.slice(0, at) + edit.text + out.slice(at);
        break;
      case 'duplicate-line':
        lines.splice(line, 0, lines[line] ?? '');
        out = lines.join('\n');
        break;
      case 'swap-lines': {
        const other = edit.with % lines.length;
        [lines[line], lines[other]] = [lines[other] ?? '', lines[line] ?? ''];
        out = lines.join('\n');
        break;
      }
    }
  }
  return out;
}

describe('parseManifest under random input', () => {
  it('never throws on arbitrary text', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), assertWellFormed), { numRuns: 400 });
  });

  it('never throws on random edits of a valid manifest', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 6 }), (edits) =>
        assertWellFormed(mutate(example, edits)),
      ),
      { numRuns: 600 },
    );
  });

  it('never throws when any field of a valid manifest holds any value', () => {
    const keys = [...Object.keys(exampleValue), 'unknownKey'];
    fc.assert(
      fc.property(fc.constantFrom(...keys), fc.jsonValue({ maxDepth: 4 }), (key, value) => {
        assertWellFormed(stringify({ ...exampleValue, [key]: value }));
      }),
      { numRuns: 400 },
    );
  });

  it('never throws on random documents built from manifest-like pieces', () => {
    const leaf = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom('string', 'number', 'button', 'space:content:read', 'private', '${{ env.X }}', '/oauth'),
    );
    const key = fc.constantFrom(
      ...Object.keys(exampleValue),
      'properties',
      'required',
      'type',
      'enum',
      'default',
      'button_text',
      'callback_url',
      'completion_url',
      'id',
      'label',
      'url',
      'account',
      'site',
    );
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('tree'), { maxLength: 4 }),
        fc.dictionary(key, tie('tree'), { maxKeys: 5 }),
      ),
    }));
    fc.assert(
      fc.property(fc.dictionary(key, tree, { maxKeys: 10 }), (doc) => assertWellFormed(stringify(doc))),
      { numRuns: 400 },
    );
  });
});
