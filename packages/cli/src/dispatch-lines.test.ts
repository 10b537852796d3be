/**
 * A dispatch as `portico dev`, `tail` and `emit --wait` print it: its line, then the integration's
 * output under it with each line's level, a stack's lines kept aligned.
 */
import type { DispatchView } from '@portico/platform';
import { describe, expect, it } from 'vitest';
import { SourceMaps } from './dev/stack-traces.js';
import { formatDispatch } from './dispatch-lines.js';

const view = (overrides: Partial<DispatchView>): DispatchView => ({
  id: 1,
  eventId: 'e1',
  type: 'space_content_updated',
  host: 'workerd',
  status: 204,
  durationMs: 3,
  error: null,
  logs: [],
  logLines: [],
  at: '2026-11-28T12:00:00.000Z',
  skipped: null,
  delivery: null,
  ...overrides,
});

describe('formatDispatch', () => {
  it('shows each line with its level, and the lines of a stack under the first', () => {
    const text = formatDispatch(
      view({
        logLines: [
          { level: 'log', message: 'handled r1' },
          { level: 'info', message: 'fetched 3 pages' },
          { level: 'warn', message: 'slow answer' },
          { level: 'error', message: 'Error: broken\n    at handler (bundle.js:3:9)' },
        ],
      }),
      'space docs',
      new SourceMaps(process.cwd()),
    );
    expect(text.split('\n').slice(1)).toEqual([
      '  │ log   handled r1',
      '  │ info  fetched 3 pages',
      '  │ warn  slow answer',
      '  │ error Error: broken',
      '  │           at handler (bundle.js:3:9)',
      '',
    ]);
  });

  it("shows an older server's lines, which have no levels, as log", () => {
    const old = view({ logs: ['handled r1'] }) as Partial<DispatchView>;
    delete old.logLines;
    const text = formatDispatch(old as DispatchView, 'space docs', new SourceMaps(process.cwd()));
    expect(text.split('\n')[1]).toBe('  │ log   handled r1');
  });
});
