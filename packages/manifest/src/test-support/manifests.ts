import { expect } from 'vitest';
import { parseManifest } from '../parse-manifest.js';
import type { ManifestError } from '../problem.js';

/** A valid manifest of exactly 7 lines: text appended to it starts on line 8. */
export const BASE = `name: demo
title: Demo
description: A demo integration
organization: acme
visibility: private
scopes:
  - space:content:read
`;

/** BASE with `key: value` lines replaced by the given ones (a value of undefined removes the line). */
export function withTopLevel(fields: Record<string, string | undefined>): string {
  const lines = BASE.split('\n').filter((line) => {
    const key = /^(\w+):/.exec(line)?.[1];
    return !(key !== undefined && key in fields && fields[key] === undefined);
  });
  return lines
    .map((line) => {
      const key = /^(\w+):/.exec(line)?.[1];
      return key !== undefined && fields[key] !== undefined ? `${key}: ${fields[key]}` : line;
    })
    .join('\n');
}

export function errorsOf(text: string, options: Parameters<typeof parseManifest>[1] = {}): ManifestError[] {
  const result = parseManifest(text, options);
  if (result.ok) return [];
  return result.errors;
}

/** Asserts that `text` fails with exactly one error at `path`, placed at `line:column`, whose message matches. */
export function expectOnlyError(
  text: string,
  expected: { path: string; line: number; column: number; message: RegExp },
) {
  const errors = errorsOf(text);
  expect(errors, JSON.stringify(errors, null, 2)).toHaveLength(1);
  const [error] = errors;
  expect({ path: error?.path, line: error?.line, column: error?.column }).toEqual({
    path: expected.path,
    line: expected.line,
    column: expected.column,
  });
  expect(error?.message).toMatch(expected.message);
}

export function expectValid(text: string) {
  const result = parseManifest(text);
  expect(result.ok ? [] : result.errors).toEqual([]);
  return result.ok ? result.manifest : undefined;
}
