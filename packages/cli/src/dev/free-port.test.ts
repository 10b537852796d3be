import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { firstFreePort } from './free-port.js';

describe('firstFreePort', () => {
  it('answers the port when it is free, else the next free one, and says when none is', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      expect(await firstFreePort('127.0.0.1', port)).toBeGreaterThan(port);
      await expect(firstFreePort('127.0.0.1', port, 1)).rejects.toThrow(
        `ports ${port} to ${port} are all taken on 127.0.0.1; choose another with --port N`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    expect(await firstFreePort('127.0.0.1', port)).toBe(port);
  });
});
