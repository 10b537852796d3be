/**
 * Reads a server-sent event stream (text/event-stream, as the WHATWG spec parses it) from a
 * fetch Response: each `event`/`data`/`id` block becomes one message; comments (`: heartbeat`)
 * and `retry` lines are skipped; an `id` with no data still moves the position.
 */

export interface SseMessage {
  event: string;
  data: string;
  /** The last id the stream sent, up to and with this message. */
  id: string | undefined;
}

export async function* readSse(
  body: ReadableStream<Uint8Array>,
  onId: (id: string) => void = () => {},
): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let lastId: string | undefined;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (;;) {
      const newline = buffer.search(/\r\n|\r|\n/);
      // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
      if (newline === -1 || (newline === buffer.length - 1 && buffer.endsWith('\r'))) break;
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      if (line === '') {
        if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), id: lastId };
        event = '';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id' && !value.includes('\0')) {
        lastId = value;
        onId(value);
      }
    }
  }
}
