import { posix } from 'node:path';

/**
 * Why `value` is not acceptable as a path to a file next to the manifest (`icon`,
 * `previewImages`, `script`), or undefined when it is: it must be relative, stay inside
 * the integration's directory, and name a file rather than a URL.
 */
export function assetPathProblem(value: string): string | undefined {
  if (value.trim() === '') return 'must be a path to a file next to the manifest, e.g. `assets/icon.png`';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    return `"${value}" is a URL; give the path of a file inside the integration's directory instead, e.g. \`assets/icon.png\``;
  }
  const slashed = value.replaceAll('\\', '/');
  if (slashed.startsWith('/') || /^[a-z]:\//i.test(slashed)) {
    return `"${value}" is an absolute path; write it relative to the directory of platform-manifest.yaml, e.g. \`assets/icon.png\``;
  }
  const normalized = posix.normalize(slashed);
  if (normalized === '..' || normalized.startsWith('../')) {
    return `"${value}" points outside the integration's directory; keep the file inside it and write the path relative to platform-manifest.yaml`;
  }
  if (normalized === '.' || normalized.endsWith('/')) return `"${value}" is a directory; give the path of a file`;
  return undefined;
}
