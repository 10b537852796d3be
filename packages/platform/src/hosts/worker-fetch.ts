/**
 * A failed outbound request rejects inside the worker, as `fetch` does in Workers.
 *
 * Every outbound request of a worker goes through the platform's egress (egress.ts), which answers
 * workerd with a Response. When the request fails (no such host, connection refused, no answer in
 * time) there is no Response to give: miniflare would turn the thrown error into a 500 whose body
 * is a Node stack trace, which the integration takes for the remote server's answer. So the host
 * answers such a failure with a marked response (FAILED_HEADER), and a small module that runs
 * before the integration's own code wraps the worker's `fetch` to reject with a TypeError carrying
 * the reason instead. The egress drops that header from real answers, so no server can fake one.
 */

import { ENTRY_MODULE, INTEGRATION_MODULE } from './worker-entry.js';

/** Marks the host's answer for an outbound request that failed. */
export const FAILED_HEADER = 'x-portico-egress-failed';

/** The answer that makes the worker's `fetch` reject with `message`. */
export function failedFetch(message: string): Response {
  return Response.json({ message }, { status: 502, headers: { [FAILED_HEADER]: '1' } });
}

/**
 * The modules a worker is loaded with: the entry (`entry`, worker-entry.ts: it imports the
 * integration and captures its console per request) runs the fetch wrapper first, then the
 * integration's bundle.
 */
export function workerModules(script: string, entry: string) {
  return [
    { type: 'ESModule' as const, path: ENTRY_MODULE, contents: `import './portico-fetch.mjs';\n${entry}` },
    { type: 'ESModule' as const, path: 'portico-fetch.mjs', contents: FETCH_WRAPPER },
    { type: 'ESModule' as const, path: INTEGRATION_MODULE, contents: script },
  ];
}

const FETCH_WRAPPER = `const send = globalThis.fetch;
globalThis.fetch = async function fetch(input, init) {
  const response = await send(input, init);
  if (response.headers.get(${JSON.stringify(FAILED_HEADER)}) === null) return response;
  const { message } = await response.json();
  throw new TypeError(message);
};
`;
