import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type LineCounter, type Node } from 'yaml';
import type { PathSegment } from './problem.js';

export interface Position {
  line: number;
  column: number;
}

/** Where paths of a manifest's data are written: a SourceMap, or one that translates paths first. */
export interface Positions {
  /** Where the value at `path` is written (or its key, when the value is empty). */
  valueAt(path: readonly PathSegment[]): Position;
  /** Where the key of the last segment of `path` is written (for unknown or duplicate keys). */
  keyAt(path: readonly PathSegment[]): Position;
}

/**
 * Finds where a path of the parsed value (`['blocks', 1, 'id']`) is written in the YAML
 * source. When the path does not exist (a missing key), it answers with the position of the
 * deepest part that does, so an error for a missing field points at the mapping that lacks it.
 */
export class SourceMap implements Positions {
  constructor(
    private readonly doc: Document,
    private readonly lineCounter: LineCounter,
  ) {}

  /** Where the value at `path` is written (or its key, when the value is empty). */
  valueAt(path: readonly PathSegment[]): Position {
    return this.locate(path, 'value');
  }

  /** Where the key of the last segment of `path` is written (for unknown or duplicate keys). */
  keyAt(path: readonly PathSegment[]): Position {
    return this.locate(path, 'key');
  }

  /** Where the byte offset `offset` of the source is. */
  offset(offset: number): Position {
    const { line, col } = this.lineCounter.linePos(offset);
    return { line, column: col };
  }

  private locate(path: readonly PathSegment[], target: 'key' | 'value'): Position {
    let node: unknown = this.doc.contents;
    let last: Node | undefined = isNode(node) ? node : undefined;
    for (const [index, segment] of path.entries()) {
      if (isAlias(node)) node = node.resolve(this.doc);
      let key: unknown;
      let next: unknown;
      if (isMap(node)) {
        const pair = node.items.find((item) => isPair(item) && keyText(item.key) === String(segment));
        if (pair === undefined) break;
        key = pair.key;
        next = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        next = node.items[segment];
        if (next === undefined) break;
      } else {
        break;
      }
      const isLast = index === path.length - 1;
      if (isLast && target === 'key' && isNode(key)) return this.start(key);
      // An empty value (`title:` and nothing else) has no text of its own: point at its key.
      if (!isNode(next) || isEmpty(next)) return isNode(key) ? this.start(key) : this.start(last);
      last = next;
      node = next;
    }
    return this.start(last);
  }

  private start(node: Node | undefined): Position {
    const offset = node?.range?.[0];
    return offset === undefined ? { line: 1, column: 1 } : this.offset(offset);
  }
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'range' in value;
}

function isEmpty(node: Node): boolean {
  return node.range !== undefined && node.range !== null && node.range[0] === node.range[1];
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return undefined;
}
