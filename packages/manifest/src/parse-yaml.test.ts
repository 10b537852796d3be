import { describe, expect, it } from 'vitest';
import { parseManifest } from './parse-manifest.js';
import { BASE, errorsOf, expectOnlyError } from './test-support/manifests.js';

describe('YAML that is not a manifest gives a clean, positioned error', () => {
  it('a syntax error', () => {
    const errors = errorsOf(`${BASE}icon: "unterminated\n`);
    expect(errors).toContainEqual({
      path: '',
      line: 9,
      column: 1,
      message: 'YAML syntax error: Missing closing "quote',
    });
  });

  it('an unclosed flow sequence', () => {
    const errors = errorsOf('name: demo\nscopes: [space:content:read\ntitle: x\n');
    expect(errors[0]).toMatchObject({ path: '', line: 3, column: 1 });
    expect(errors[0]?.message).toMatch(/^YAML syntax error: /);
  });

  it('a duplicate key, at the second occurrence', () => {
    expectOnlyError(`${BASE}name: other\n`, {
      path: '',
      line: 8,
      column: 1,
      message: /the key "name" appears twice in the same mapping; keep one of them/,
    });
  });

  it('a duplicate key in a nested mapping', () => {
    expectOnlyError(`${BASE}blocks:\n  - id: a\n    id: b\n`, {
      path: '',
      line: 10,
      column: 5,
      message: /"id" appears twice/,
    });
  });

  it('tabs used as indentation', () => {
    expectOnlyError(`${BASE}blocks:\n\t- id: a\n`, { path: '', line: 9, column: 1, message: /tabs are not allowed/ });
  });

  it('several documents', () => {
    expectOnlyError(`${BASE}---\nname: second\n`, {
      path: '',
      line: 8,
      column: 1,
      message: /must be a single YAML document; remove the `---` separator/,
    });
  });

  it('an unknown tag', () => {
    expectOnlyError(`${BASE}icon: !!js/function x\n`, { path: '', line: 8, column: 7, message: /unknown YAML tag/ });
  });

  for (const [label, text] of [
    ['an empty file', ''],
    ['a file of comments only', '# nothing here\n# yet\n'],
    ['a document of null', '~\n'],
  ] as const) {
    it(label, () => {
      expectOnlyError(text, { path: '', line: 1, column: 1, message: /the manifest is empty; it needs at least name/ });
    });
  }

  it('a list instead of a mapping', () => {
    expectOnlyError('- name: demo\n', {
      path: '',
      line: 1,
      column: 1,
      message: /must be a YAML mapping .* but it is a list/,
    });
  });

  it('a single string instead of a mapping', () => {
    expectOnlyError('just some words\n', { path: '', line: 1, column: 1, message: /but it is a single string/ });
  });

  it('a 10 MB file, refused before it is parsed', () => {
    const text = `${BASE}summary: "${'x'.repeat(10 * 1024 * 1024)}"\n`;
    expectOnlyError(text, {
      path: '',
      line: 1,
      column: 1,
      message: /the manifest is 10 MiB; a manifest may be at most 256 KiB/,
    });
  });

  it('a byte-order mark is ignored', () => {
    expect(parseManifest(`\uFEFF${BASE}`).ok).toBe(true);
  });

  it('deeply nested flow collections, refused before parsing at the first level too deep', () => {
    const depth = 100_000;
    const text = `${BASE}icon: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
    expectOnlyError(text, { path: '', line: 8, column: 71, message: /nested too deeply .*more than 64 levels/ });
    expect(errorsOf(`${BASE}icon: ${'{a: '.repeat(65)}1${'}'.repeat(65)}\n`)[0]?.message).toMatch(/nested too deeply/);
  });

  it('brackets inside quotes and comments do not count as nesting', () => {
    const brackets = '['.repeat(100);
    expect(parseManifest(`${BASE}# ${brackets}\nsummary: "${brackets}"\n`).ok).toBe(true);
  });

  it('deeply nested block mappings, as deep as the size limit allows', () => {
    let text = `${BASE}icon:\n`;
    for (let i = 1; i < 700; i++) text += `${' '.repeat(i)}k:\n`;
    expectOnlyError(text, {
      path: 'icon',
      line: 9,
      column: 2,
      message: /`icon` must be text \(a string\), but it is a mapping/,
    });
  });

  it('an alias expansion bomb ("billion laughs")', () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const text = `${BASE}${levels.join('\n')}\n`;
    expectOnlyError(text, {
      path: '',
      line: 9,
      column: 8,
      message: /aliases \(\*name\) expand to far more data than a manifest holds/,
    });
  });

  it('a few harmless aliases are resolved', () => {
    const text = `${BASE.replace('title: Demo', 'title: &t Demo')}description: *t\n`.replace(
      'description: A demo integration\n',
      '',
    );
    const result = parseManifest(text);
    expect(result.ok && result.manifest.description).toBe('Demo');
  });
});
