/**
 * A dispatch as the terminal shows it, in `portico dev`, `tail` and `emit --wait`: one line
 * (time, event type, installation, status, duration) and the integration's output under it. An
 * event the installation missed while paused says so (the platform wrote that line).
 * Kept apart from the dev platform's stream so the commands that only print load no platform.
 */
import type { DispatchView } from '@portico/platform';
import type { SourceMaps } from './dev/stack-traces.js';

/** One dispatch as the terminal shows it: its line, then the integration's output indented. */
export function formatDispatch(view: DispatchView, label: string, maps: SourceMaps): string {
  const outcome = view.skipped
    ? `skipped while ${view.skipped} (not sent, and not kept)`
    : view.status === 0
      ? `failed after ${view.durationMs} ms: ${view.error ?? 'no answer'}`
      : `${view.status} in ${view.durationMs} ms${view.error ? ` (${view.error})` : ''}`;
  const lines = [`${clock(new Date(view.at))} ${view.type} → ${label}: ${outcome}`];
  for (const line of levelled(view)) lines.push(...formatLogLine(line, maps));
  return `${lines.join('\n')}\n`;
}

type Level = 'log' | 'info' | 'warn' | 'error';

/** The dispatch's lines with their levels (a server from before levels were kept sends `logs` alone). */
function levelled(view: DispatchView): { level: Level; message: string }[] {
  return view.logLines ?? view.logs.map((message) => ({ level: 'log' as const, message }));
}

/**
 * One line of the integration's output, indented under its dispatch with its level
 * (`log`, `info`, `warn`, `error`); a message of several lines (a stack) keeps them aligned.
 */
export function formatLogLine(line: { level: Level; message: string }, maps: SourceMaps): string[] {
  const [first = '', ...rest] = maps.map(line.message).split('\n');
  return [`  │ ${line.level.padEnd(5)} ${first}`, ...rest.map((more) => `  │       ${more}`)];
}

/** HH:MM:SS in local time. */
export function clock(at: Date = new Date()): string {
  return at.toTimeString().slice(0, 8);
}
