/** `@portico/webhooks/node`: serve a receiver from Node's `http` module. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookReceiver } from './receiver.js';

/** A `(req, res)` listener for `http.createServer` that hands each request to `receiver`. */
export function toNodeListener(receiver: WebhookReceiver): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(receiver, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'the receiver failed' }));
    });
  };
}

async function handle(receiver: WebhookReceiver, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const body = hasBody ? bodyOf(req) : undefined;
  const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method: req.method ?? 'GET',
    headers,
    body: body?.stream ?? null,
    duplex: 'half',
  } as RequestInit);
  const response = await receiver.fetch(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(new Uint8Array(await response.arrayBuffer()));
  // Read and discard what the receiver did not (a refused body), so the client sees the answer.
  body?.discardRest();
}

/** The request body as a web stream that, once abandoned, drains the socket instead of resetting it. */
function bodyOf(req: IncomingMessage): { stream: ReadableStream<Uint8Array>; discardRest(): void } {
  let open = true;
  const discardRest = () => {
    open = false;
    req.resume();
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      req.pause();
      req.on('data', (chunk: Buffer) => {
        if (!open) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.on('end', () => open && controller.close());
      req.on('error', (error) => open && controller.error(error));
    },
    pull() {
      req.resume();
    },
    cancel: discardRest,
  });
  return { stream, discardRest };
}
