/**
 * The SDK sends an integration's console output back with its answer when the platform asks
 * (a remote integration), framed; without the ask it answers as it always did.
 */
import { describe, expect, it } from 'vitest';
import { createIntegration } from './integration.js';
import { createCollector, formatArgs, LOG_LIMITS, OUTPUT_FRAMED_HEADER, OUTPUT_REQUEST_HEADER } from './output.js';
import { envelopeRequest } from './test-support/envelopes.js';
import type { PlatformEvent } from './types.js';

async function meta(response: Response) {
  const raw = new Uint8Array(await response.arrayBuffer());
  const length = new DataView(raw.buffer).getUint32(raw.length - 4);
  return {
    body: new TextDecoder().decode(raw.subarray(0, raw.length - 4 - length)),
    meta: JSON.parse(new TextDecoder().decode(raw.subarray(raw.length - 4 - length, raw.length - 4))),
  };
}

describe('the SDK’s console capture', () => {
  it('frames the answer with the lines written while it ran, when asked; answers as it is otherwise', async () => {
    const logging = createIntegration({
      events: {
        space_content_updated: async (event) => {
          console.info('updating %s', event.revisionId);
          await new Promise((resolve) => setTimeout(resolve, 1));
          console.error('it broke');
        },
      },
    });
    const event = { type: 'space_content_updated', eventId: 'e1', spaceId: 's', revisionId: 'r7' } as PlatformEvent;
    const asked = await envelopeRequest(event);
    asked.headers.set(OUTPUT_REQUEST_HEADER, 'framed');
    const answer = await logging.fetch(asked);
    expect(answer.status).toBe(200);
    expect(answer.headers.get(OUTPUT_FRAMED_HEADER)).toBe('1');
    const { meta: m } = await meta(answer);
    expect(m.status).toBeGreaterThanOrEqual(200);
    expect(m.logs).toEqual([
      { level: 'info', message: 'updating r7' },
      { level: 'error', message: 'it broke' },
    ]);
    const plain = await logging.fetch(await envelopeRequest(event));
    expect(plain.headers.get(OUTPUT_FRAMED_HEADER)).toBeNull();
    expect(plain.status).toBe(m.status);
  });

  it('formats as util.format does for the common cases', () => {
    expect(formatArgs(['a %s b %d %i %%', 'x', '4', 4.7, 'rest', { k: [1] }])).toBe('a x b 4 4 % rest {"k":[1]}');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(formatArgs([circular, 10n, undefined, null])).toBe('{"self":"[Circular]"} 10n undefined null');
  });

  it('bounds the lines, cuts a long one, and says how many were dropped', () => {
    const collector = createCollector(LOG_LIMITS);
    collector.push('log', 'x'.repeat(LOG_LIMITS.lineChars + 5));
    for (let i = 0; i < 250; i++) collector.push('log', `l${i}`);
    const lines = collector.finish();
    expect(lines[0]?.message).toBe(`${'x'.repeat(LOG_LIMITS.lineChars)}… (5 more characters)`);
    expect(lines).toHaveLength(201);
    expect(lines[200]).toEqual({
      level: 'warn',
      message: '… 51 more lines dropped (a dispatch keeps its first 200 lines and 64 KiB of output)',
    });
    collector.push('log', 'after');
    expect(collector.finish()).toHaveLength(201);
  });
});
