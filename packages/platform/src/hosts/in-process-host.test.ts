/**
 * The in-process host captures what a built-in integration writes to `console` per dispatch
 * (AsyncLocalStorage), though it runs in the server's own process: concurrent dispatches never see
 * each other's lines, and the server's own output stays outside every dispatch.
 */
import { createIntegration } from '@portico/runtime';
import { describe, expect, it } from 'vitest';
import { fetchRequest } from '../test-support/host-request.js';
import { InProcessHost } from './in-process-host.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the in-process host', () => {
  it('gives 200 concurrent dispatches exactly their own lines, with levels, timers included', async () => {
    const chatty = createIntegration({
      async fetch(request) {
        const path = new URL(request.url).pathname.replace('/public', '');
        const n = Number(path.slice(2));
        await sleep(Math.random() * 5);
        console.log(`handled ${path}`);
        // A timer's line written before the answer is the dispatch's, as any other (awaited: the
        // answer waits for it, so no scheduling can put it after).
        await new Promise<void>((resolve) =>
          setTimeout(() => {
            console.error(`late ${path}`);
            resolve();
          }, 1),
        );
        await sleep(n % 20);
        console.warn('careful %s', path);
        return new Response(path);
      },
    });
    const host = new InProcessHost(new Map([['chatty', chatty]]));
    try {
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          host.dispatch({ name: 'chatty', version: 1, script: '' }, fetchRequest(`/n${i}`)),
        ),
      );
      answers.forEach((answer, i) => {
        expect(new TextDecoder().decode(answer.body)).toBe(`/n${i}`);
        expect(answer.logs).toEqual([
          { level: 'log', message: `handled /n${i}` },
          { level: 'error', message: `late /n${i}` },
          { level: 'warn', message: `careful /n${i}` },
        ]);
      });
    } finally {
      await host.close();
    }
  });

  it('leaves output after the answer, and outside any dispatch, out of every dispatch', async () => {
    const quick = createIntegration({
      async fetch() {
        console.log('during');
        setTimeout(() => console.log('after the answer'), 20);
        return new Response('ok');
      },
    });
    const host = new InProcessHost(new Map([['quick', quick]]));
    const first = host.dispatch({ name: 'quick', version: 1, script: '' }, fetchRequest('/'));
    console.log('the server’s own line, while a dispatch runs');
    const answer = await first;
    const next = host.dispatch({ name: 'quick', version: 1, script: '' }, fetchRequest('/'));
    await sleep(50); // the first dispatch's timer fires while the next one runs
    expect(answer.logs).toEqual([{ level: 'log', message: 'during' }]);
    expect((await next).logs).toEqual([{ level: 'log', message: 'during' }]);
    await host.close();
  });

  it('bounds a dispatch’s lines and says how many were dropped', async () => {
    const flood = createIntegration({
      async fetch() {
        for (let i = 0; i < 300; i++) console.info(`line ${i}`);
        console.log('x'.repeat(20_000));
        return new Response('ok');
      },
    });
    const host = new InProcessHost(new Map([['flood', flood]]));
    const answer = await host.dispatch({ name: 'flood', version: 1, script: '' }, fetchRequest('/'));
    expect(answer.logs).toHaveLength(201);
    expect(answer.logs[0]).toEqual({ level: 'info', message: 'line 0' });
    expect(answer.logs[200]).toEqual({
      level: 'warn',
      message: '… 101 more lines dropped (a dispatch keeps its first 200 lines and 64 KiB of output)',
    });
    await host.close();
  });
});
