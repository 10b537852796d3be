import { isAlias, LineCounter, parseDocument, visit, type YAMLError } from 'yaml';
import type { ManifestError } from './problem.js';
import { SourceMap } from './source-map.js';
import { MAX_FLOW_DEPTH, MAX_MANIFEST_BYTES } from './vocabulary.js';

export type YamlResult = { ok: true; value: unknown; sourceMap: SourceMap } | { ok: false; errors: ManifestError[] };

/** Aliases resolved while turning the document into data; far above what a manifest needs. */
const MAX_ALIAS_COUNT = 100;

/**
 * Parses the YAML of a manifest into plain data, refusing (with positioned errors, never an
 * exception) what no manifest should contain: syntax errors, duplicate keys, several
 * documents, unknown tags, oversized input, nesting deep enough to exhaust the stack and
 * alias expansion bombs.
 */
export function parseYaml(text: string): YamlResult {
  const size = new TextEncoder().encode(text).length;
  if (size > MAX_MANIFEST_BYTES) {
    return fail(
      `the manifest is ${formatBytes(size)}; a manifest may be at most ${formatBytes(MAX_MANIFEST_BYTES)}: keep long text such as documentation out of it`,
    );
  }
  const deepAt = flowDepthExceeded(text, MAX_FLOW_DEPTH);
  if (deepAt !== undefined) {
    return fail(
      `the YAML is nested too deeply to be a manifest (more than ${MAX_FLOW_DEPTH} levels of [ ] or { }); flatten it`,
      lineAndColumn(text, deepAt),
    );
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text.startsWith('\uFEFF') ? text.slice(1) : text, {
    lineCounter,
    uniqueKeys: true,
    prettyErrors: false,
    keepSourceTokens: false,
  });
  const sourceMap = new SourceMap(doc, lineCounter);
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length > 0) {
    const errors = problems.map((problem) => yamlProblem(problem, text, sourceMap));
    // The parser reports stack exhaustion once per level it unwinds; one line says it all.
    return { ok: false, errors: dedupe(errors) };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    const at = firstAliasOffset(doc);
    const position = at === undefined ? { line: 1, column: 1 } : sourceMap.offset(at);
    const message =
      error instanceof ReferenceError && /alias/i.test(error.message)
        ? 'the YAML aliases (*name) expand to far more data than a manifest holds; write the values out instead of repeating aliases'
        : `the YAML could not be read: ${error instanceof Error ? error.message : String(error)}`;
    return { ok: false, errors: [{ path: '', ...position, message }] };
  }
  return { ok: true, value, sourceMap };
}

function yamlProblem(problem: YAMLError, text: string, sourceMap: SourceMap): ManifestError {
  const position = sourceMap.offset(problem.pos[0]);
  const found = text.slice(problem.pos[0], problem.pos[1]);
  let message: string;
  switch (problem.code) {
    case 'DUPLICATE_KEY': {
      const key = /^("[^"\n]*"|'[^'\n]*'|[^:\n]+?)\s*:/.exec(text.slice(problem.pos[0]))?.[1] ?? found;
      message = `the key ${key ? `${/^["']/.test(key) ? key : `"${key}"`} ` : ''}appears twice in the same mapping; keep one of them`;
      break;
    }
    case 'MULTIPLE_DOCS':
      message = 'the manifest must be a single YAML document; remove the `---` separator and what follows it';
      break;
    case 'RESOURCE_EXHAUSTION':
      return {
        path: '',
        line: 1,
        column: 1,
        message: 'the YAML is nested too deeply to be a manifest; flatten it',
      };
    case 'TAG_RESOLVE_FAILED':
      message = `unknown YAML tag${found ? ` "${found}"` : ''}; remove it: a manifest holds plain strings, numbers, booleans, lists and mappings`;
      break;
    case 'TAB_AS_INDENT':
      message = 'tabs are not allowed as indentation in YAML; indent with spaces';
      break;
    default:
      message = `YAML syntax error: ${firstSentence(problem.message)}`;
  }
  return { path: '', ...position, message };
}

function firstAliasOffset(doc: ReturnType<typeof parseDocument>): number | undefined {
  let offset: number | undefined;
  visit(doc, {
    Alias(_key, node) {
      if (isAlias(node) && node.range) offset = node.range[0];
      return visit.BREAK;
    },
  });
  return offset;
}

function dedupe(errors: ManifestError[]): ManifestError[] {
  const seen = new Set<string>();
  return errors.filter((error) => {
    const key = `${error.line}:${error.column}:${error.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function fail(message: string, position = { line: 1, column: 1 }): YamlResult {
  return { ok: false, errors: [{ path: '', ...position, message }] };
}

/**
 * The offset where flow collections (`[`, `{`) first nest deeper than `limit`, skipping quoted
 * strings and comments; a linear scan that spares the parser (and its stack) absurd input.
 */
function flowDepthExceeded(text: string, limit: number): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return i;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
    } else if (c === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x27) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x27; i++);
    } else if (c === 0x23 && (i === 0 || text.charCodeAt(i - 1) <= 0x20)) {
      while (i < text.length && text.charCodeAt(i) !== 0x0a) i++;
    }
  }
  return undefined;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

function firstSentence(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${bytes} bytes`;
}
