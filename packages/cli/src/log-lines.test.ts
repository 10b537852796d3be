import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../manifest/src/test-support/temp-dir.js';
import { GatheredLines } from './log-lines.js';

const opened: { lines: GatheredLines; fd: number }[] = [];
afterEach(() => {
  for (const { lines, fd } of opened.splice(0)) {
    lines.close();
    closeSync(fd);
  }
});

async function gathered() {
  const file = join(await tempDir(), 'out.log');
  const fd = openSync(file, 'a');
  const lines = new GatheredLines(fd);
  opened.push({ lines, fd });
  return { lines, written: () => readFileSync(file, 'utf8') };
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the log lines of portico serve', () => {
  it('are written together, 100 ms after the first, in order', async () => {
    const { lines, written } = await gathered();
    lines.write('{"n":1}\n');
    lines.write('{"n":2}\n');
    await settle(20);
    expect(written()).toBe('');
    await settle(250);
    expect(written()).toBe('{"n":1}\n{"n":2}\n');
  });

  it('go out at once when 16 KiB have gathered', async () => {
    const { lines, written } = await gathered();
    const line = `${JSON.stringify({ msg: 'x'.repeat(1000) })}\n`;
    for (let i = 0; i < 17; i++) lines.write(line);
    await settle(20);
    expect(written()).toBe(line.repeat(17));
  });

  it('are all written when closed, synchronously', async () => {
    const { lines, written } = await gathered();
    lines.write('{"n":1}\n');
    lines.close();
    expect(written()).toBe('{"n":1}\n');
  });
});
