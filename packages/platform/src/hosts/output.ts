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
 * The same collector runs in this process (built-in integrations, `captureOutput`) and inside
 * every workerd worker (`worker-entry.ts` embeds `createCollector`'s source), so the bound is one.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { format } from 'node:util';
import type { LogLevel, LogLine } from './host.js';

export const LOG_LIMITS = { lines: 200, chars: 64 * 1024, lineChars: 8 * 1024 } as const;
export const LOG_LEVELS: readonly LogLevel[] = ['log', 'info', 'warn', 'error'];

export interface Collector {
  /** False once the dispatch has answered: later lines are outside it. */
  readonly open: boolean;
  push(level: string, message: string): void;
  /** Closes the collector; its lines, with the "dropped" line last when some were. */
  finish(): { level: string; message: string }[];
}

/**
 * A bounded collector of one dispatch's lines. Self-contained (no imports, no outer names): its
 * source is also what runs inside workerd.
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
/** The console methods captured, and the level each line gets. */
const METHODS = { log: 'log', debug: 'log', info: 'info', warn: 'warn', error: 'error' } as const;
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
  for (const [method, level] of Object.entries(METHODS)) {
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
