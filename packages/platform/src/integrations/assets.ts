/**
 * The files a manifest names for the integration's page: its `icon` and `previewImages`. The
 * publisher sends them with the manifest (`assets`: the path as the manifest names it → the
 * file's bytes in base64); they are kept per version and served by
 * `GET /v1/integrations/{name}/assets/{asset}`, where `asset` is `icon` or `preview-N`.
 */
import type { Manifest } from '@portico/manifest';
import type { Kysely } from 'kysely';
import { invalid, notFound } from '../errors/domain-error.js';
import * as integrations from '../storage/repositories/integrations.js';
import type { Database } from '../storage/schema.js';
import type { ServiceContext } from '../types.js';

/** Largest file accepted per asset (a 1600 x 800 PNG preview is usually well under this). */
export const MAX_ASSET_BYTES = 2 * 1024 * 1024;

export interface AssetRow {
  asset: string;
  path: string;
  content_type: string;
  bytes: Uint8Array;
}

/** The manifest's files by the name they are served under: `icon`, `preview-0`, `preview-1`, … */
export function namedAssets(manifest: Pick<Manifest, 'icon' | 'previewImages'>): { asset: string; path: string }[] {
  return [
    ...(manifest.icon !== undefined ? [{ asset: 'icon', path: manifest.icon }] : []),
    ...(manifest.previewImages ?? []).map((path, index) => ({ asset: `preview-${index}`, path })),
  ];
}

/**
 * Checks the files sent with a publication against the manifest and answers the rows to store.
 * Every file must be one the manifest names, in base64, an image (preview images PNG or JPEG),
 * and at most MAX_ASSET_BYTES. A named file that was not sent is left out (its page shows none).
 */
export function acceptAssets(manifest: Manifest, assets: Record<string, string> | undefined): AssetRow[] {
  if (assets === undefined) return [];
  const named = namedAssets(manifest);
  const rows: AssetRow[] = [];
  for (const [path, base64] of Object.entries(assets)) {
    const matches = named.filter((n) => n.path === path);
    if (matches.length === 0) {
      const names = named.map((n) => `\`${n.path}\``).join(', ');
      throw invalid(
        'unknown_asset',
        `assets.${path}: the manifest names no such file; send only the files its \`icon\` and \`previewImages\` name${names ? ` (${names})` : ' (it names none)'}`,
      );
    }
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) {
      throw invalid('invalid_asset', `assets.${path}: send the file's bytes in base64`);
    }
    const bytes = new Uint8Array(Buffer.from(base64, 'base64'));
    if (bytes.length > MAX_ASSET_BYTES) {
      throw invalid(
        'invalid_asset',
        `assets.${path}: the file is ${bytes.length} bytes; an icon or preview image may be at most ${MAX_ASSET_BYTES}`,
      );
    }
    const type = imageType(bytes);
    for (const { asset } of matches) {
      const preview = asset.startsWith('preview-');
      if (type === undefined || (preview && type !== 'image/png' && type !== 'image/jpeg')) {
        throw invalid(
          'invalid_asset',
          `assets.${path}: ${preview ? 'a preview image must be a PNG or JPEG' : 'an icon must be a PNG, JPEG, GIF, WebP, SVG or ICO image'}${type ? `, not ${type}` : ', and the file is none of these'}`,
        );
      }
      rows.push({ asset, path, content_type: type, bytes });
    }
  }
  return rows;
}

/** The image type of a file by its first bytes (never by its name). */
export function imageType(bytes: Uint8Array): string | undefined {
  const starts = (...signature: number[]) => signature.every((b, i) => bytes[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (starts(0x52, 0x49, 0x46, 0x46) && String.fromCharCode(...bytes.subarray(8, 12)) === 'WEBP') return 'image/webp';
  if (starts(0x00, 0x00, 0x01, 0x00)) return 'image/x-icon';
  const head = new TextDecoder().decode(bytes.subarray(0, 1024)).trimStart();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head)) return 'image/svg+xml';
  return undefined;
}

/** Which assets of a version were stored. */
export async function storedAssets(db: Kysely<Database>, name: string, version: number): Promise<Set<string>> {
  const rows = await integrations.assetNames(db, name, version);
  return new Set(rows.map((r) => r.asset));
}

export async function storedIcons(db: Kysely<Database>, named: { name: string }[]): Promise<Set<string>> {
  if (named.length === 0) return new Set();
  const rows = await integrations.withIcons(
    db,
    named.map((i) => i.name),
  );
  return new Set(rows.map((r) => r.integration_name));
}

export function assetUrl(name: string, version: number, asset: string, share?: string): string {
  const query = new URLSearchParams({ v: String(version), ...(share !== undefined ? { share } : {}) });
  return `/v1/integrations/${encodeURIComponent(name)}/assets/${asset}?${query}`;
}

/** The stored file of an asset of the given version. */
export async function readAsset(ctx: ServiceContext, name: string, version: number, asset: string) {
  const row = await integrations.assetBytes(ctx.db, name, version, asset);
  if (!row) throw notFound(`the asset ${asset} of the integration ${name}`);
  return { contentType: row.content_type, bytes: new Uint8Array(row.bytes) };
}
