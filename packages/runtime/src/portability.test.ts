/**
 * @portico/runtime must run unchanged in workerd, Node, Deno and Bun: its sources use Web APIs
 * only. (The workerd tests run it; this names the offending line when someone slips.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dir = new URL('.', import.meta.url);
const sources = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

describe('the runtime sources', () => {
  it('exist', () => expect(sources.length).toBeGreaterThan(5));
  for (const file of sources) {
    it(`${file} uses no Node-only API`, () => {
      const offending = readFileSync(new URL(file, dir), 'utf8')
        .split('\n')
        .map((line, i) => `${i + 1}: ${line}`)
        .filter((line) => /from ['"]node:|require\(|\bBuffer\b|\bprocess\.|__dirname/.test(line));
      expect(offending).toEqual([]);
    });
  }
});
