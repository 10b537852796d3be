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
  for (const log of view.logs) lines.push(`  │ ${maps.map(log)}`);
  return `${lines.join('\n')}\n`;
}

/** HH:MM:SS in local time. */
export function clock(at: Date = new Date()): string {
  return at.toTimeString().slice(0, 8);
}
