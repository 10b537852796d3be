import { describe, expect, it } from 'vitest';
import { withHandWrittenSections } from './benchmarks-file.mjs';

const generated = `# Benchmarks

- Date: 2026-11-28

## API

new API figures

## Peers

new peer figures
`;

/** Two sections written by hand, as sessions add them. */
const handWritten = `## A change measured (issue 23)

before and after

## Another, earlier

| a | b |
|---|---|

`;

describe('BENCHMARKS.md rewritten by npm run bench', () => {
  it("keeps the sections written by hand, in order, before the report's own, and replaces the report's", () => {
    const previous = `# Benchmarks

- Date: 2026-11-20

${handWritten}## API

old API figures

## Peers

old peer figures
`;
    const written = withHandWrittenSections(generated, previous);
    expect(written).toBe(`# Benchmarks

- Date: 2026-11-28

${handWritten}## API

new API figures

## Peers

new peer figures
`);
  });

  it('writes the report as it is when there is no earlier file, or nothing written by hand', () => {
    expect(withHandWrittenSections(generated, undefined)).toBe(generated);
    expect(withHandWrittenSections(generated, '# Benchmarks\n\n## API\n\nold\n')).toBe(generated);
  });

  it('keeps a section written by hand after the last generated one too, with a blank line after it', () => {
    const written = withHandWrittenSections(generated, '# B\n\n## API\n\nold\n## Late note\ntext');
    expect(written).toContain('## Late note\ntext\n\n## API\n\nnew API figures');
  });
});
