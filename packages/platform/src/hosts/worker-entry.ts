/**
 * The module a workerd worker starts from: it wraps the integration's bundle (whatever built it,
 * `@portico/runtime` or a GitBook-dialect integration's own runtime) and captures its console
 * output per request, in-band (see `output.ts`).
 *
 * `console` is patched once, in the worker; each line finds its request through
 * AsyncLocalStorage (workerd's `nodejs_als` flag, which adds `node:async_hooks` and nothing else:
 * no `process`, no Node globals). The answer goes back framed, so the lines travel with it:
 *
 *   body = the integration's body ‖ meta (UTF-8 JSON `{ status, headers, logs }`) ‖ meta's length (4 bytes, big-endian)
 *
 * with the header `x-portico-framed: 1` and status 200 (the integration's own status, even 204 or
 * 304, is in the meta; a null-body status could not carry the frame). The body is streamed
 * through, so lines written while it streams still count. An answer without the header is
 * workerd's own (a request it cancelled): it is taken as it is, with no lines.
 */
import { HostError, type LogLine, MAX_RESPONSE_BYTES, readResponse, tooLarge } from './host.js';
import { createCollector, LOG_LIMITS, parseLogLines } from './output.js';

export const ENTRY_MODULE = 'portico-entry.mjs';
export const INTEGRATION_MODULE = 'integration.mjs';
export const FRAMED_HEADER = 'x-portico-framed';
/** What workerd needs for the entry: AsyncLocalStorage, without the rest of Node's compatibility layer. */
/** Room for the frame's meta beyond the body's limit (the lines are bounded to 64 Ki characters). */
const FRAME_ALLOWANCE = 1024 * 1024;
export const ENTRY_COMPATIBILITY_FLAGS = ['nodejs_als'];

/**
 * Formats `console` arguments as one line, as Node's `util.format` does for the common cases
 * (`%s %d %i %f %j %o %O %c %%`, errors by their stack, objects as JSON). Self-contained: its
 * source runs inside workerd.
 */
export function formatArgs(args: unknown[]): string {
  const show = (value: unknown): string => {
    if (typeof value === 'string') return value;
    if (value instanceof Error) return value.stack || `${value.name}: ${value.message}`;
    if (typeof value === 'function') return `[Function: ${value.name || '(anonymous)'}]`;
    if (typeof value === 'bigint') return `${value}n`;
    if (typeof value !== 'object' || value === null) return String(value);
    try {
      const seen = new WeakSet();
      const json = JSON.stringify(value, (_key, inner: unknown) => {
        if (typeof inner === 'bigint') return `${inner}n`;
        if (typeof inner === 'object' && inner !== null) {
          if (seen.has(inner)) return '[Circular]';
          seen.add(inner);
        }
        return inner;
      });
      return json === undefined ? String(value) : json;
    } catch {
      return String(value);
    }
  };
  const first = args[0];
  if (typeof first !== 'string' || !first.includes('%')) return args.map(show).join(' ');
  let next = 1;
  const head = first.replace(/%[sdifjoOc%]/g, (token) => {
    if (token === '%%') return '%';
    if (next >= args.length) return token;
    const value = args[next++];
    if (token === '%c') return '';
    if (token === '%d' || token === '%i') {
      const number = typeof value === 'bigint' ? value : Number(value);
      return typeof number === 'bigint' ? `${number}n` : String(token === '%i' ? Math.trunc(number) : number);
    }
    if (token === '%f') return String(Number.parseFloat(String(value)));
    return show(value);
  });
  return [head, ...args.slice(next).map(show)].join(' ');
}

/** The entry module's source (`LOG_LIMITS` and the collector are the ones this process uses). */
export function entrySource(): string {
  return `import { AsyncLocalStorage } from 'node:async_hooks';
import integration from './${INTEGRATION_MODULE}';
export * from './${INTEGRATION_MODULE}';

const LIMITS = ${JSON.stringify(LOG_LIMITS)};
const createCollector = ${createCollector.toString()};
const formatArgs = ${formatArgs.toString()};
const current = new AsyncLocalStorage();
for (const [method, level] of [['log', 'log'], ['debug', 'log'], ['info', 'info'], ['warn', 'warn'], ['error', 'error']]) {
  const original = console[method].bind(console);
  console[method] = (...args) => {
    const collector = current.getStore();
    if (collector && collector.open) collector.push(level, formatArgs(args));
    else original(...args);
  };
}

function framed(status, headers, body, collector) {
  // workerd's own byte stream: the body goes through natively, the frame is written after it.
  const { readable, writable } = new IdentityTransformStream();
  const finish = async () => {
    if (body) await body.pipeTo(writable, { preventClose: true });
    const meta = new TextEncoder().encode(JSON.stringify({ status, headers, logs: collector.finish() }));
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, meta.length);
    const writer = writable.getWriter();
    await writer.write(meta);
    await writer.write(length);
    await writer.close();
  };
  current.run(collector, finish).catch((error) => writable.abort(error).catch(() => {}));
  return new Response(readable, { status: 200, headers: { '${FRAMED_HEADER}': '1', 'content-type': 'application/octet-stream' } });
}

export default {
  ...integration,
  async fetch(request, env, ctx) {
    const collector = createCollector(LIMITS);
    let response;
    try {
      response = await current.run(collector, () => integration.fetch(request, env, ctx));
    } catch (error) {
      collector.push('error', 'Uncaught ' + formatArgs([error]));
      const body = new Response(JSON.stringify({ error: { code: 'integration_error', message: 'the integration failed while handling the request' } })).body;
      return framed(500, [['content-type', 'application/json']], body, collector);
    }
    return framed(response.status, [...response.headers], response.body, collector);
  },
};
`;
}

/**
 * The integration's answer out of the entry's frame: its status, headers, body and lines. A frame
 * that does not parse is the worker misbehaving (its code replaced `Response`, say): a crash.
 */
export async function unframe(
  response: Response,
): Promise<{ status: number; headers: [string, string][]; body: Uint8Array; logs: LogLine[] }> {
  // The frame adds the lines and a few bytes: the limit is on the integration's body.
  const raw = await readResponse(response, MAX_RESPONSE_BYTES + FRAME_ALLOWANCE).catch((error: unknown) => {
    throw error instanceof HostError && error.failure === 'too_large' ? tooLarge() : error;
  });
  if (response.headers.get(FRAMED_HEADER) !== '1') {
    if (raw.length > MAX_RESPONSE_BYTES) throw tooLarge();
    return { status: response.status, headers: [...response.headers], body: raw, logs: [] };
  }
  const malformed = () =>
    new HostError('crashed', 'the worker answered a frame that does not parse; the next request starts a new one');
  if (raw.length < 4) throw malformed();
  const metaLength = new DataView(raw.buffer, raw.byteOffset + raw.length - 4, 4).getUint32(0);
  const metaStart = raw.length - 4 - metaLength;
  if (metaStart < 0) throw malformed();
  let meta: { status?: unknown; headers?: unknown; logs?: unknown };
  try {
    meta = JSON.parse(new TextDecoder().decode(raw.subarray(metaStart, raw.length - 4)));
  } catch {
    throw malformed();
  }
  const logs = parseLogLines(meta.logs);
  if (typeof meta.status !== 'number' || !Array.isArray(meta.headers) || logs === undefined) throw malformed();
  if (metaStart > MAX_RESPONSE_BYTES) throw tooLarge();
  return {
    status: meta.status,
    headers: meta.headers as [string, string][],
    body: raw.subarray(0, metaStart),
    logs,
  };
}
