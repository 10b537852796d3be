import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { LoadedManifest, Manifest } from '@portico/manifest';
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
