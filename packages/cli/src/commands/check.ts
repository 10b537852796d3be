import { basename, relative, resolve } from 'node:path';
import { formatProblem, loadManifest } from '@portico/manifest';
import type { Io } from '../io.js';

export interface CheckOptions {
  json?: boolean;
  strict?: boolean;
  internal?: boolean;
  /** For a gitbook-manifest.yaml: the entry of its `envs` to apply. */
  env?: string;
}

/**
 * `portico check [DIR]`: validates DIR/platform-manifest.yaml (or, when there is none, the
 * GitBook dialect's DIR/gitbook-manifest.yaml as Portico reads it) and the files it names.
 * Prints `FILE:LINE:COL: message` per problem (or JSON with --json) and answers the exit code:
 * 0 when valid, 1 when not (warnings fail only with --strict).
 */
export async function check(dir: string | undefined, options: CheckOptions, io: Io): Promise<number> {
  const target = resolve(io.cwd, dir ?? '.');
  const result = await loadManifest(target, {
    internalPublisher: options.internal === true,
    ...(options.env !== undefined ? { env: options.env } : {}),
  });
  const file = basename(result.file);
  const valid = result.ok && !(options.strict && result.warnings.length > 0);
  if (options.json) {
    io.out(`${JSON.stringify({ valid, errors: result.errors, warnings: result.warnings }, null, 2)}\n`);
    return valid ? 0 : 1;
  }
  for (const error of result.errors) io.out(`${formatProblem(file, error)}\n`);
  for (const warning of result.warnings) io.out(`${formatProblem(file, warning, 'warning')}\n`);
  const where = relative(io.cwd, result.file) || file;
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (result.ok) {
    const warned = result.warnings.length > 0 ? ` with ${count(result.warnings.length, 'warning')}` : '';
    io.err(
      `${where}: ${result.manifest.name} is valid${warned}${valid ? '' : ' (--strict: warnings fail the check)'}\n`,
    );
  } else {
    io.err(
      `${where}: ${count(result.errors.length, 'error')}${result.warnings.length ? `, ${count(result.warnings.length, 'warning')}` : ''}\n`,
    );
  }
  return valid ? 0 : 1;
}
