/**
 * An integration's console output, captured in-band: what it writes to `console` while it handles
 * a dispatch is collected for that dispatch, where it runs, and handed back with the answer. The
 * lines belong to their dispatch by construction, whatever the timing; nothing is read from a
 * process's stdout and matched to "the dispatch that is current" (that lost lines under load:
 * issue 43).
 *
 * Each dispatch keeps its first `LOG_LIMITS.lines` lines and `LOG_LIMITS.chars` characters; a
 * longer line is cut at `LOG_LIMITS.lineChars`. Past the bound, the rest of the dispatch's lines
 * are dropped and counted, and one last `warn` line says how many ("… N more lines dropped").
 * What is written outside any dispatch (at import, or by work left running after the answer) goes
 * where it went before: the server's log, and `portico dev`'s terminal.
 *
 * The same collector (`@portico/runtime`'s output.ts) runs in this process (built-in integrations,
 * `captureOutput`), inside every workerd worker (`worker-entry.ts` embeds its source) and in a
 * remote integration built with the SDK, so the bound is one.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { format } from 'node:util';
import { CAPTURED_METHODS, type Collector, createCollector, LOG_LIMITS, OUTPUT_FRAMED_HEADER } from '@portico/runtime';
import { HostError, type LogLevel, type LogLine, MAX_RESPONSE_BYTES, readResponse, tooLarge } from './host.js';

export { LOG_LIMITS };

export const LOG_LEVELS: readonly LogLevel[] = ['log', 'info', 'warn', 'error'];

/**
 * Lines a worker or a remote integration sent back, checked and bounded again here: anything
 * that is not a list of `{ level, message }` is refused as a whole, a level we do not know reads
 * as `log`, and a list past the bound is cut with its "dropped" line.
 */
export function parseLogLines(value: unknown): LogLine[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const lines: LogLine[] = [];
  for (const line of value) {
    if (typeof line !== 'object' || line === null || typeof (line as LogLine).message !== 'string') return undefined;
    lines.push({ level: levelOf((line as LogLine).level), message: (line as LogLine).message });
  }
  // A list the collector bounded (its lines, then the "dropped" line) is kept as it is.
  const chars = lines.reduce((sum, line) => sum + line.message.length, 0);
  const marker = lines.length > LOG_LIMITS.lines ? 1 : 0;
  if (lines.length <= LOG_LIMITS.lines + marker && chars <= LOG_LIMITS.chars + MARKER_ROOM * marker)
    return lines.every((line) => line.message.length <= LOG_LIMITS.lineChars + MARKER_ROOM) ? lines : rebound(lines);
  return rebound(lines);
}

/** Room for the "… N more characters" and "dropped" lines beyond the bound. */
const MARKER_ROOM = 200;

function rebound(lines: LogLine[]): LogLine[] {
  const collector = createCollector(LOG_LIMITS);
  for (const line of lines) collector.push(line.level, line.message);
  return collector.finish() as LogLine[];
}

export function levelOf(level: unknown): LogLevel {
  return LOG_LEVELS.includes(level as LogLevel) ? (level as LogLevel) : 'log';
}

const current = new AsyncLocalStorage<Collector>();
let patched = false;

/**
 * Runs `work` (one dispatch of an integration that runs in this process) with its console output
 * collected for it: `console` is patched once, and each call finds its dispatch through
 * AsyncLocalStorage, so concurrent dispatches never see each other's lines, and the server's own
 * output (outside any dispatch) goes to the console as before. The lines come back with the
 * result, or with the error `work` threw.
 */
export async function captureOutput<T>(
  work: () => Promise<T>,
): Promise<{ result: T; logs: LogLine[] } | { error: unknown; logs: LogLine[] }> {
  patchConsole();
  const collector = createCollector(LOG_LIMITS);
  try {
    const result = await current.run(collector, work);
    return { result, logs: collector.finish() as LogLine[] };
  } catch (error) {
    return { error, logs: collector.finish() as LogLine[] };
  }
}

function patchConsole(): void {
  if (patched) return;
  patched = true;
  for (const [method, level] of CAPTURED_METHODS) {
    const original = (console as unknown as Record<string, (...args: unknown[]) => void>)[method];
    if (typeof original !== 'function') continue;
    const bound = original.bind(console);
    (console as unknown as Record<string, (...args: unknown[]) => void>)[method] = (...args: unknown[]) => {
      const collector = current.getStore();
      if (collector?.open) collector.push(level, format(...args));
      else bound(...args);
    };
  }
}

/** Room for the frame's meta beyond the body's limit (the lines are bounded to 64 Ki characters). */
const FRAME_ALLOWANCE = 1024 * 1024;
/**
 * The integration's answer out of its frame (a workerd worker's entry, or a remote integration
 * built with the SDK): its status, headers, body and lines. An answer that is not framed is taken as
 * it is, with no lines. A frame that does not parse is the integration misbehaving: a crash.
 */
export async function unframe(
  response: Response,
): Promise<{ status: number; headers: [string, string][]; body: Uint8Array; logs: LogLine[] }> {
  if (response.headers.get(OUTPUT_FRAMED_HEADER) !== '1')
    return { status: response.status, headers: [...response.headers], body: await readResponse(response), logs: [] };
  // The frame adds the lines and a few bytes: the limit is on the integration's body.
  const raw = await readResponse(response, MAX_RESPONSE_BYTES + FRAME_ALLOWANCE).catch((error: unknown) => {
    throw error instanceof HostError && error.failure === 'too_large' ? tooLarge() : error;
  });
  const malformed = () =>
    new HostError('crashed', 'the integration answered a frame that does not parse (its output and answer were lost)');
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
  // What a Response could have carried: a status of 200 to 599, and headers as pairs of strings.
  const status = meta.status;
  const headers = meta.headers;
  if (
    typeof status !== 'number' ||
    !Number.isInteger(status) ||
    status < 200 ||
    status > 599 ||
    !Array.isArray(headers) ||
    !headers.every(
      (pair) => Array.isArray(pair) && pair.length === 2 && pair.every((part) => typeof part === 'string'),
    ) ||
    logs === undefined
  )
    throw malformed();
  if (metaStart > MAX_RESPONSE_BYTES) throw tooLarge();
  return {
    status,
    headers: headers as [string, string][],
    body: raw.subarray(0, metaStart),
    logs,
  };
}
