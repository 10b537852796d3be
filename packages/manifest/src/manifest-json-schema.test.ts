import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { manifestJsonSchema } from './manifest-json-schema.js';

const committed = JSON.parse(readFileSync(new URL('../schema/platform-manifest.schema.json', import.meta.url), 'utf8'));
const example = parse(
  readFileSync(new URL('../../../examples/hello-world/platform-manifest.yaml', import.meta.url), 'utf8'),
);

describe('the manifest JSON Schema for editors', () => {
  it('is the committed file, generated from the validator (run `npm run build && npm run schema -w @portico/manifest` if this fails)', () => {
    expect(committed).toEqual(manifestJsonSchema());
  });

  const validate = new Ajv2020({ allErrors: true, strict: false, validateFormats: false }).compile(
    manifestJsonSchema(),
  );

  it('accepts the example manifest', () => {
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
  });

  it('refuses what the validator refuses structurally', () => {
    const cases: unknown[] = [
      { ...example, name: 'Not Valid' },
      { ...example, visibility: 'secret' },
      { ...example, scopes: ['space:nothing'] },
      { ...example, titel: 'typo' },
      { ...example, summary: 'x'.repeat(2049) },
      { ...example, secrets: { KEY: 'literal-value' } },
      { ...example, configurations: { site: { properties: { p: { type: 'number', enum: [1] } } } } },
      { ...example, configurations: { site: { properties: { p: { type: 'button' } } } } },
    ];
    for (const manifest of cases) expect(validate(manifest), JSON.stringify(manifest).slice(0, 80)).toBe(false);
  });

  it('measures summary in characters, as the validator does', () => {
    expect(validate({ ...example, summary: '🎉'.repeat(2048) })).toBe(true);
  });
});
