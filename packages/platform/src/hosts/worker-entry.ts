/**
 * The module a workerd worker starts from: it wraps the integration's bundle (whatever built it,
 * `@portico/runtime` or a GitBook-dialect integration's own runtime) and captures its console
 * output per request, in-band (see `output.ts`).
 *
 * `console` is patched once, in the worker; each line finds its request through
 * AsyncLocalStorage (workerd's `nodejs_als` flag, which adds `node:async_hooks` and nothing else:
 * no `process`, no Node globals). The answer goes back framed, so the lines travel with it:
 *
 *   body = the integration's body ‖ meta (UTF-8 JSON `{ status, headers, logs }`) ‖ meta's length (4 bytes, big-endian)
 *
 * with the header `x-portico-framed: 1` and status 200 (the integration's own status, even 204 or
 * 304, is in the meta; a null-body status could not carry the frame). The body is streamed
 * through, so lines written while it streams still count. An answer without the header is
 * workerd's own (a request it cancelled): it is taken as it is, with no lines.
 */
import { CAPTURED_METHODS, createCollector, formatArgs, LOG_LIMITS, OUTPUT_FRAMED_HEADER } from '@portico/runtime';

export const ENTRY_MODULE = 'portico-entry.mjs';
export const INTEGRATION_MODULE = 'integration.mjs';

/** The entry module's source (`LOG_LIMITS` and the collector are the ones this process uses). */
export function entrySource(): string {
  return `import { AsyncLocalStorage } from 'node:async_hooks';
import integration from './${INTEGRATION_MODULE}';
export * from './${INTEGRATION_MODULE}';

const LIMITS = ${JSON.stringify(LOG_LIMITS)};
const createCollector = ${createCollector.toString()};
const formatArgs = ${formatArgs.toString()};
const current = new AsyncLocalStorage();
for (const [method, level] of ${JSON.stringify(CAPTURED_METHODS)}) {
  const original = console[method].bind(console);
  console[method] = (...args) => {
    const collector = current.getStore();
    if (collector && collector.open) collector.push(level, formatArgs(args));
    else original(...args);
  };
}

function framed(status, headers, body, collector) {
  // workerd's own byte stream: the body goes through natively, the frame is written after it.
  const { readable, writable } = new IdentityTransformStream();
  const finish = async () => {
    if (body) await body.pipeTo(writable, { preventClose: true });
    const meta = new TextEncoder().encode(JSON.stringify({ status, headers, logs: collector.finish() }));
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, meta.length);
    const writer = writable.getWriter();
    await writer.write(meta);
    await writer.write(length);
    await writer.close();
  };
  current.run(collector, finish).catch((error) => writable.abort(error).catch(() => {}));
  return new Response(readable, { status: 200, headers: { '${OUTPUT_FRAMED_HEADER}': '1', 'content-type': 'application/octet-stream' } });
}

export default {
  ...integration,
  async fetch(request, env, ctx) {
    const collector = createCollector(LIMITS);
    let response;
    try {
      response = await current.run(collector, () => integration.fetch(request, env, ctx));
    } catch (error) {
      collector.push('error', 'Uncaught ' + formatArgs([error]));
      const body = new Response(JSON.stringify({ error: { code: 'integration_error', message: 'the integration failed while handling the request' } })).body;
      return framed(500, [['content-type', 'application/json']], body, collector);
    }
    return framed(response.status, [...response.headers], response.body, collector);
  },
};
`;
}
