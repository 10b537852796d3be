import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { GitBookDialect, LoadedManifest, Manifest } from '@portico/manifest';
import { stringify } from 'yaml';

/**
 * The manifest text sent to the platform, which reads Portico's manifest: the file as written, or
 * for a GitBook-dialect integration the Portico manifest it was translated to (so the platform
 * reports its problems against that text, and keeps what it does not know beside it).
 */
export async function publishedManifest(loaded: LoadedManifest & { ok: true; manifest: Manifest }): Promise<string> {
  if (loaded.dialect === 'gitbook') {
    return `# Translated by portico from ${basename(loaded.file)}\n${stringify(loaded.manifest)}`;
  }
  return readFile(loaded.file, 'utf8');
}

/**
 * What the publish body carries beside the manifest for a GitBook-dialect integration: the facts
 * its gitbook-manifest.yaml states that Portico's manifest has no field for (`target`,
 * `contentSecurityPolicy`, configuration components, blocks' `urlUnfurl` and `markdown`), so the
 * platform knows the version speaks that runtime. `envs` stays here: one was applied already.
 * Nothing for a Portico integration.
 */
export function publishedDialect(loaded: LoadedManifest): { gitbook?: Omit<GitBookDialect, 'envs' | 'env'> } {
  if (loaded.dialect !== 'gitbook' || loaded.gitbook === undefined) return {};
  const { envs: _envs, env: _env, ...facts } = loaded.gitbook;
  return { gitbook: facts };
}
