/** A positioned problem found in a manifest: an error (the manifest is refused) or a warning. */
export interface ManifestError {
  /** Where in the manifest, e.g. `configurations.site.properties.url.type` or `blocks[1].id`; `` for the whole file. */
  path: string;
  /** 1-based line of the offending key or value. */
  line: number;
  /** 1-based column of the offending key or value. */
  column: number;
  /** What is wrong and how to fix it. */
  message: string;
}

export type PathSegment = string | number;

const PLAIN_KEY = /^[A-Za-z_$][\w$:-]*$/;

/** Formats a path as `a.b[0].c`; keys that would be ambiguous are quoted: `secrets["my.key"]`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** `platform-manifest.yaml:LINE:COL: message`, the format of `portico check` and of editors' problem matchers. */
export function formatProblem(file: string, problem: ManifestError, severity: 'error' | 'warning' = 'error'): string {
  const prefix = severity === 'warning' ? 'warning: ' : '';
  return `${file}:${problem.line}:${problem.column}: ${prefix}${problem.message}`;
}

export function byPosition(a: ManifestError, b: ManifestError): number {
  return a.line - b.line || a.column - b.column;
}
