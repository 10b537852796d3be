/**
 * An integration's console output, captured in-band: what it writes to `console` while it handles
 * a request is collected for that request, where it runs, and goes back with the answer, so every
 * line belongs to its dispatch whatever the timing (issue 43).
 *
 * The platform's hosts use these pieces too (one bound, one format): the workerd host's entry
 * module embeds `createCollector` and `formatArgs`, the in-process host collects with them, and a
 * remote integration built with this SDK frames its answer when the platform asks
 * (`OUTPUT_REQUEST_HEADER`) and its runtime has AsyncLocalStorage (Node, Deno, Bun).
 *
 * Each request keeps its first `LOG_LIMITS.lines` lines and `LOG_LIMITS.chars` characters, a line
 * cut at `LOG_LIMITS.lineChars`; past the bound the rest are dropped, counted, and one last `warn`
 * line says how many ("… N more lines dropped").
 *
 * The frame: status 200, header `x-portico-framed: 1`, and
 *   body = the answer's body ‖ meta (UTF-8 JSON `{ status, headers, logs }`) ‖ meta's length (4 bytes, big-endian)
 * (the answer's own status is in the meta: a 204 or 304 could not carry a body).
 */

export const LOG_LIMITS = { lines: 200, chars: 64 * 1024, lineChars: 8 * 1024 } as const;
/** On a request: `framed` asks the integration for its output with its answer. */
export const OUTPUT_REQUEST_HEADER = 'x-portico-output';
/** On an answer: `1` when it is framed. */
export const OUTPUT_FRAMED_HEADER = 'x-portico-framed';

export interface OutputLine {
  level: string;
  message: string;
}

export interface Collector {
  /** False once the request has answered: later lines are outside it. */
  readonly open: boolean;
  push(level: string, message: string): void;
  /** Closes the collector; its lines, with the "dropped" line last when some were. */
  finish(): OutputLine[];
}

/**
 * A bounded collector of one request's lines. Self-contained (no imports, no outer names): its
 * source also runs inside workerd, in the platform's entry module.
 */
export function createCollector(limits: { lines: number; chars: number; lineChars: number }): Collector {
  const lines: { level: string; message: string }[] = [];
  let chars = 0;
  let dropped = 0;
  let open = true;
  return {
    get open() {
      return open;
    },
    push(level, message) {
      if (!open) return;
      let text = String(message);
      if (text.length > limits.lineChars)
        text = `${text.slice(0, limits.lineChars)}… (${text.length - limits.lineChars} more characters)`;
      if (dropped > 0 || lines.length >= limits.lines || chars + text.length > limits.chars) {
        dropped++;
        return;
      }
      chars += text.length;
      lines.push({ level, message: text });
    },
    finish() {
      open = false;
      if (dropped === 0) return lines;
      return [
        ...lines,
        {
          level: 'warn',
          message: `… ${dropped} more line${dropped === 1 ? '' : 's'} dropped (a dispatch keeps its first ${limits.lines} lines and ${Math.round(limits.chars / 1024)} KiB of output)`,
        },
      ];
    },
  };
}

/**
 * `console` arguments as one line, as Node's `util.format` does for the common cases
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

/** The console methods captured, and the level each line gets. */
export const CAPTURED_METHODS = [
  ['log', 'log'],
  ['debug', 'log'],
  ['info', 'info'],
  ['warn', 'warn'],
  ['error', 'error'],
] as const;

interface Storage {
  run<T>(store: Collector, work: () => T): T;
  getStore(): Collector | undefined;
}

let storage: Storage | null | undefined;

/**
 * AsyncLocalStorage where the runtime has it (Node, Deno and Bun expose it through
 * `getBuiltinModule`), with `console` patched once to find each line's request through it; null
 * elsewhere (a browser, or workerd without Node compatibility: there the platform captures).
 */
function requestStorage(): Storage | null {
  if (storage !== undefined) return storage;
  const host = (globalThis as { process?: { getBuiltinModule?: (name: string) => unknown } }).process;
  const hooks = host?.getBuiltinModule?.('node:async_hooks') as { AsyncLocalStorage?: new () => Storage } | undefined;
  if (typeof hooks?.AsyncLocalStorage !== 'function') {
    storage = null;
    return storage;
  }
  const found = new hooks.AsyncLocalStorage();
  const target = console as unknown as Record<string, (...args: unknown[]) => void>;
  for (const [method, level] of CAPTURED_METHODS) {
    const original = target[method];
    if (typeof original !== 'function') continue;
    const bound = original.bind(console);
    target[method] = (...args: unknown[]) => {
      const collector = found.getStore();
      if (collector?.open) collector.push(level, formatArgs(args));
      else bound(...args);
    };
  }
  storage = found;
  return storage;
}

/**
 * Answers `request` with `work`, framed with the console output written while it ran, when the
 * platform asks for it and this runtime can attribute output to a request; as it is otherwise.
 */
export async function answerWithOutput(request: Request, work: () => Promise<Response>): Promise<Response> {
  const found = request.headers.get(OUTPUT_REQUEST_HEADER) === 'framed' ? requestStorage() : null;
  if (!found) return work();
  const collector = createCollector(LOG_LIMITS);
  let response: Response;
  try {
    response = await found.run(collector, work);
  } catch (error) {
    collector.push('error', `Uncaught ${formatArgs([error])}`);
    response = Response.json(
      { error: { code: 'integration_error', message: 'the integration failed while handling the request' } },
      { status: 500 },
    );
  }
  const body = new Uint8Array(await found.run(collector, () => response.arrayBuffer()));
  const meta = new TextEncoder().encode(
    JSON.stringify({ status: response.status, headers: [...response.headers], logs: collector.finish() }),
  );
  const framed = new Uint8Array(body.length + meta.length + 4);
  framed.set(body, 0);
  framed.set(meta, body.length);
  new DataView(framed.buffer).setUint32(body.length + meta.length, meta.length);
  return new Response(framed, {
    status: 200,
    headers: { [OUTPUT_FRAMED_HEADER]: '1', 'content-type': 'application/octet-stream' },
  });
}
