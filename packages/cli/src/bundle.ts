/**
 * How integrations are bundled (`portico publish` and `portico dev`): the manifest's `script`
 * and everything it imports, as one ES module for any Workers-style runtime; and how bundling
 * problems are printed, as `FILE:LINE:COL: message` for editors and problem matchers.
 */
import { relative, resolve } from 'node:path';
import type { BuildOptions, Message } from 'esbuild';

export const BUNDLE_OPTIONS = {
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  target: 'es2022',
  write: false,
  logLevel: 'silent',
} as const satisfies BuildOptions;

/**
 * The problems of a failed build, one line each, with their file relative to `cwd`; an empty
 * list when `error` is not a build failure.
 */
export function buildProblems(error: unknown, dir: string, cwd: string): string[] {
  const messages = (error as { errors?: Message[] }).errors ?? [];
  return messages.map((message) => {
    const at = message.location;
    if (!at) return message.text;
    const file = relative(cwd, resolve(dir, at.file)) || at.file;
    // esbuild counts columns from 0; editors from 1.
    return `${file}:${at.line}:${at.column + 1}: ${message.text}`;
  });
}
