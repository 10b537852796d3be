import { describe, expect, it, vi } from 'vitest';
import { StopSignals } from './stop-signals.js';

describe('StopSignals', () => {
  it('keeps the stop signals for the command while it waits: listeners added meanwhile are removed', async () => {
    const again = vi.fn();
    const signals = new StopSignals(again);
    const exitAtOnce = vi.fn(); // what Miniflare's exit hook does on SIGINT
    process.on('SIGINT', exitAtOnce);
    await Promise.resolve();
    try {
      expect(process.listeners('SIGINT')).not.toContain(exitAtOnce);
      process.emit('SIGINT', 'SIGINT');
      expect(await signals.received).toBe('SIGINT');
      expect(signals.signal).toBe('SIGINT');
      expect(exitAtOnce).not.toHaveBeenCalled();
      process.emit('SIGTERM', 'SIGTERM');
      expect(again).toHaveBeenCalledWith('SIGTERM');
    } finally {
      signals.dispose();
      process.off('SIGINT', exitAtOnce);
    }
    // Once disposed, others may listen again.
    const later = () => {};
    process.on('SIGHUP', later);
    await Promise.resolve();
    expect(process.listeners('SIGHUP')).toContain(later);
    process.off('SIGHUP', later);
  });
});
