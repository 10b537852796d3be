/**
 * An installation's own delivery headers (an `Authorization` a gateway asks for, a tenant id): the
 * rules they must follow, and the text form a configuration keeps them in, one `Name: value` per
 * line. They may not set what the platform sets or what frames the request: the signature headers,
 * every `webhook-*` and `x-platform-*` name, `content-type`, `user-agent`, `content-length`,
 * `host`, `connection`, `transfer-encoding`.
 */

export const MAX_CUSTOM_HEADERS = 20;
export const MAX_CUSTOM_HEADER_BYTES = 4096;

/** RFC 9110 field names: tokens. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110 field values as Node sends them: visible ASCII, spaces and tabs inside, no CR, LF or NUL. */
const VALUE = /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/;
const RESERVED = new Set([
  'content-type',
  'user-agent',
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

/** Why `name` may not be a custom header; undefined when it may. */
function nameProblem(name: string): string | undefined {
  if (!TOKEN.test(name)) {
    return `"${name}" is not a header name: use letters, digits and - (such as X-Tenant-Id)`;
  }
  const lower = name.toLowerCase();
  if (lower.startsWith('webhook-') || lower.startsWith('x-platform-')) {
    return `"${name}" is one of the platform's own headers (webhook-* and X-Platform-* sign and describe each delivery): choose another name`;
  }
  if (RESERVED.has(lower)) return `"${name}" is set by the platform for every delivery: remove it`;
  return undefined;
}

/**
 * What is wrong with `headers` (name → value), each problem naming the header and how to fix it;
 * empty when they may be sent.
 */
export function customHeaderProblems(headers: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const entries = Object.entries(headers);
  if (entries.length > MAX_CUSTOM_HEADERS) {
    problems.push(`${entries.length} headers are too many: at most ${MAX_CUSTOM_HEADERS}`);
  }
  const seen = new Set<string>();
  let bytes = 0;
  for (const [name, value] of entries) {
    const problem = nameProblem(name);
    if (problem !== undefined) problems.push(problem);
    if (seen.has(name.toLowerCase())) problems.push(`"${name}" is given twice (header names ignore case): keep one`);
    seen.add(name.toLowerCase());
    if (typeof value !== 'string') {
      problems.push(`the value of "${name}" must be a string`);
      continue;
    }
    if (!VALUE.test(value)) {
      problems.push(
        `the value of "${name}" must be printable ASCII without line breaks and not empty or padded with spaces`,
      );
    }
    bytes += name.length + value.length;
  }
  if (bytes > MAX_CUSTOM_HEADER_BYTES) {
    problems.push(`the headers hold ${bytes} bytes: at most ${MAX_CUSTOM_HEADER_BYTES} in all`);
  }
  return problems;
}

/**
 * Reads the configuration's text form: one `Name: value` per line (blank lines are skipped).
 * Answers the headers and what is wrong with them (a line without a colon included).
 */
export function parseHeaderLines(text: string): { headers: Record<string, string>; problems: string[] } {
  const headers: Record<string, string> = {};
  const problems: string[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon < 0) {
      problems.push(`line ${index + 1} ("${line.slice(0, 40)}") is not "Name: value"`);
      continue;
    }
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (Object.hasOwn(headers, name) || Object.keys(headers).some((n) => n.toLowerCase() === name.toLowerCase())) {
      problems.push(`"${name}" is given twice (header names ignore case): keep one`);
      continue;
    }
    headers[name] = value;
  }
  return { headers, problems: [...problems, ...customHeaderProblems(headers)] };
}
