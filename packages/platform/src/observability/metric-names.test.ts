/**
 * The exposition follows Prometheus's naming rules as `promtool check metrics` checks them: every
 * counter's name ends in `_total` and nothing else's does; and operator alert deliveries are counted
 * apart from customers' deliveries.
 */
import { describe, expect, it } from 'vitest';
import { PlatformMetrics } from './metrics.js';

function types(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) found.set(match[1] as string, match[2] as string);
  return found;
}

describe('metric names', () => {
  it('end in _total for counters, and only for counters', async () => {
    const metrics = new PlatformMetrics();
    const { text } = await metrics.render();
    const found = types(text);
    expect(found.size).toBeGreaterThan(10);
    const wrong = [...found].filter(([name, type]) => (type === 'counter') !== name.endsWith('_total'));
    expect(wrong).toEqual([]);
  });

  it('count alert deliveries in portico_alert_*, not in the customers’ counters', async () => {
    const metrics = new PlatformMetrics();
    const ok = { kind: 'answered', status: 200, excerpt: '', durationMs: 5 } as const;
    const failing = { kind: 'answered', status: 500, excerpt: '', durationMs: 5 } as const;
    metrics.attempted('evt_1', ok, 'delivered', Date.now());
    metrics.attempted('evt_2', failing, 'failed', Date.now(), 'alert');
    metrics.attempted('evt_3', failing, 'pending', Date.now(), 'alert');
    const { text } = await metrics.render();
    expect(text).toMatch(/^portico_deliveries_total\{outcome="delivered"\} 1$/m);
    expect(text).not.toMatch(/^portico_deliveries_total\{outcome="failed"\}/m);
    expect(text).toMatch(/^portico_delivery_attempts_total\{class="2xx"\} 1$/m);
    expect(text).not.toMatch(/^portico_delivery_attempts_total\{class="5xx"\}/m);
    expect(text).toMatch(/^portico_alert_deliveries_total\{outcome="failed"\} 1$/m);
    expect(text).toMatch(/^portico_alert_delivery_attempts_total\{class="5xx"\} 2$/m);
  });
});
