/**
 * Records the `fetch` calls integration code makes while the harness dispatches to it. The
 * global fetch is wrapped once; a call is attributed to the platform whose dispatch (or
 * `waitUntil` work) it runs in, through AsyncLocalStorage, so test code's own fetches and
 * other platforms' calls are never mixed in.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface Recorder {
  /** Called for each fetch made inside `run`. */
  record(request: RecordedRequest): void;
}

const current = new AsyncLocalStorage<Recorder>();
let original: typeof fetch | undefined;
let users = 0;

/** Runs `fn` so that the fetch calls it makes, now or later, are given to `recorder`. */
export function runRecorded<T>(recorder: Recorder, fn: () => T): T {
  return current.run(recorder, fn);
}

export function installFetchRecorder(): () => void {
  users++;
  if (original === undefined) {
    const realFetch = globalThis.fetch;
    original = realFetch;
    globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const recorder = current.getStore();
      if (recorder !== undefined) {
        const request = new Request(input, init);
        recorder.record({
          method: request.method,
          url: request.url,
          headers: Object.fromEntries(request.headers),
          body: request.body === null ? '' : await request.clone().text(),
        });
        return realFetch(request);
      }
      return realFetch(input, init);
    };
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--users === 0 && original !== undefined) {
      globalThis.fetch = original;
      original = undefined;
    }
  };
}
