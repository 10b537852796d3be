import { open, realpath, stat } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';
import { imageSize } from 'image-size';
import { assetPathProblem } from './asset-path.js';
import { formatPath, type ManifestError, type PathSegment } from './problem.js';
import { isRecord } from './schema-issues.js';
import type { Positions } from './source-map.js';
import { PREVIEW_IMAGE_SIZE } from './vocabulary.js';

/** Enough of an image to find its dimensions in the header (JPEG may carry a large EXIF block first). */
const IMAGE_HEADER_BYTES = 1024 * 1024;

export interface AssetReport {
  errors: ManifestError[];
  warnings: ManifestError[];
}

/**
 * Checks the files a manifest names (`script`, `icon`, `previewImages`) against the
 * integration's directory: each must exist, be a file, and stay inside the directory after
 * symbolic links are followed. Preview images must be PNG or JPEG; those that are not 2:1 at
 * 1600 x 800 or larger give a warning.
 */
export async function checkAssets(value: unknown, sourceMap: Positions, dir: string): Promise<AssetReport> {
  const report: AssetReport = { errors: [], warnings: [] };
  if (!isRecord(value)) return report;
  const root = await realpath(dir);
  const add = (list: ManifestError[], path: PathSegment[], message: string) =>
    list.push({ path: formatPath(path), ...sourceMap.valueAt(path), message: `\`${formatPath(path)}\`: ${message}` });

  const assets: { path: PathSegment[]; file: string; preview: boolean }[] = [];
  for (const field of ['script', 'icon'] as const) {
    const file = value[field];
    if (typeof file === 'string') assets.push({ path: [field], file, preview: false });
  }
  if (Array.isArray(value.previewImages)) {
    value.previewImages.forEach((file, index) => {
      if (typeof file === 'string') assets.push({ path: ['previewImages', index], file, preview: true });
    });
  }

  for (const asset of assets) {
    if (assetPathProblem(asset.file) !== undefined) continue; // the schema already reported it
    const absolute = resolve(root, asset.file);
    let real: string;
    try {
      real = await realpath(absolute);
    } catch {
      add(
        report.errors,
        asset.path,
        `the file "${asset.file}" does not exist (looked for ${absolute}); add it or fix the path`,
      );
      continue;
    }
    if (real !== root && !real.startsWith(root + sep)) {
      add(
        report.errors,
        asset.path,
        `"${asset.file}" leads outside the integration's directory (through a symbolic link to ${real}); keep the file inside ${root}`,
      );
      continue;
    }
    if (!(await stat(real)).isFile()) {
      add(report.errors, asset.path, `"${asset.file}" is not a file (${relative(root, real) || '.'} is a directory)`);
      continue;
    }
    if (asset.preview) checkPreviewImage(await readHeader(real), asset, report, add);
  }
  return report;
}

function checkPreviewImage(
  header: Uint8Array,
  asset: { path: PathSegment[]; file: string },
  report: AssetReport,
  add: (list: ManifestError[], path: PathSegment[], message: string) => void,
): void {
  let size: { width: number; height: number; type?: string | undefined };
  try {
    size = imageSize(header);
  } catch {
    add(report.errors, asset.path, `"${asset.file}" is not a PNG or JPEG image; preview images must be PNG or JPEG`);
    return;
  }
  if (size.type !== 'png' && size.type !== 'jpg') {
    add(
      report.errors,
      asset.path,
      `"${asset.file}" is a ${size.type ?? 'unknown'} image; preview images must be PNG or JPEG`,
    );
    return;
  }
  const { width, height } = PREVIEW_IMAGE_SIZE;
  const recommended = `${width} x ${height} pixels (2:1) is recommended`;
  if (size.width !== 2 * size.height) {
    add(
      report.warnings,
      asset.path,
      `"${asset.file}" is ${size.width} x ${size.height} pixels, which is not a 2:1 aspect ratio; ${recommended}`,
    );
  } else if (size.width < width) {
    add(
      report.warnings,
      asset.path,
      `"${asset.file}" is ${size.width} x ${size.height} pixels, smaller than recommended, and will look blurry; ${recommended}`,
    );
  }
}

async function readHeader(file: string): Promise<Uint8Array> {
  const handle = await open(file, 'r');
  try {
    const buffer = new Uint8Array(IMAGE_HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, IMAGE_HEADER_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
