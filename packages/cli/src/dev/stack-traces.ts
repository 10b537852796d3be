/**
 * Maps positions in bundled scripts back to the TypeScript sources: each bundle `portico dev`
 * publishes names itself with a `//# sourceURL=` comment, so workerd's stack traces (and any
 * other line the integration prints) say `bundle-<hash>.js:LINE:COL`, which is looked up in that
 * bundle's source map and rewritten as `src/file.ts:LINE:COL`, relative to the directory the
 * developer works in.
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';

/** Source maps kept: enough for the dispatches still in flight from older versions. */
const KEPT = 20;

export class SourceMaps {
  private readonly maps = new Map<string, TraceMap>();

  /** @param cwd positions are printed relative to this directory */
  constructor(private readonly cwd: string) {}

  /**
   * Keeps the map of a bundle named `sourceURL`, built to `outfile` (its sources are relative to
   * that file's directory).
   */
  add(sourceURL: string, map: string, outfile: string): void {
    this.maps.delete(sourceURL);
    this.maps.set(sourceURL, new TraceMap(map, outfile));
    for (const name of this.maps.keys()) {
      if (this.maps.size <= KEPT) break;
      this.maps.delete(name);
    }
  }

  /** `line` with each `bundle:LINE:COL` of a known bundle replaced by its source position. */
  map(line: string): string {
    if (this.maps.size === 0) return line;
    return line.replace(/([\w./-]+\.js):(\d+):(\d+)/g, (whole, name: string, l: string, c: string) => {
      const traced = this.maps.get(name);
      if (traced === undefined) return whole;
      // Stack traces count columns from 1; source maps from 0.
      const found = originalPositionFor(traced, { line: Number(l), column: Math.max(Number(c) - 1, 0) });
      if (found.source === null || found.line === null) return whole;
      return `${this.display(found.source)}:${found.line}:${found.column + 1}`;
    });
  }

  private display(source: string): string {
    const path = source.startsWith('file://') ? fileURLToPath(source) : source;
    const shown = relative(this.cwd, path);
    return shown.startsWith('..') && shown.split('/').filter((p) => p === '..').length > 2 ? path : shown || path;
  }
}
