import { describe, expect, it } from 'vitest';
import { readSse } from './sse.js';

/** A body that arrives in these chunks. */
const body = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });

async function read(...chunks: string[]) {
  const ids: string[] = [];
  const messages = [];
  for await (const message of readSse(body(...chunks), (id) => ids.push(id))) messages.push(message);
  return { messages, ids };
}

describe('readSse', () => {
  it('reads events with their type, data and position, skipping comments and retry lines', async () => {
    const { messages, ids } = await read(
      'retry: 2000\nid: 0.5\n\n',
      'event: dispatch\ndata: {"id":1}\nid: 1.5\n\n: heartbeat\nid: 1.5\n\n',
      'event: delivery\ndata: {"a":\ndata: 2}\nid: 2.7\n\n',
    );
    expect(messages).toEqual([
      { event: 'dispatch', data: '{"id":1}', id: '1.5' },
      { event: 'delivery', data: '{"a":\n2}', id: '2.7' },
    ]);
    expect(ids).toEqual(['0.5', '1.5', '1.5', '2.7']);
  });

  it('puts lines split across chunks back together, with any line ending', async () => {
    const { messages } = await read('event: disp', 'atch\r\ndata:x\r', '\n\r\ndata: plain\r\rdata:', ' last\n\n');
    expect(messages).toEqual([
      { event: 'dispatch', data: 'x', id: undefined },
      { event: 'message', data: 'plain', id: undefined },
      { event: 'message', data: 'last', id: undefined },
    ]);
  });

  it('sends nothing for a block without data, and nothing unfinished at the end', async () => {
    const { messages } = await read('event: dispatch\n\n', 'data: cut off');
    expect(messages).toEqual([]);
  });
});
