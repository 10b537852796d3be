/**
 * The build integration of the CLI's GitBook-dialect tests, written for them in the shapes of
 * that runtime's wire format (it does not use `@gitbook/runtime`). The test gives it two
 * dependencies in its node_modules, each with a Node entry that does not build for a worker:
 * `dual-entry` has a `browser` field, `cond-entry` a `worker` condition in its `exports`.
 *
 * At its integration-wide public endpoint:
 * - `/entries`: which entry of each dependency was bundled, and a SHA-256 from `node:crypto`
 *   (kept for the runtime, as webhook-verifying dependencies import it);
 * - `/fetch?to=URL`: fetches URL and says whether that resolved (its status and body) or
 *   rejected (the error's class and message), as an integration that calls a provider does;
 * - `/gzip`: answers a text with `content-encoding: gzip`.
 */
import { createHash } from 'node:crypto';
import { entry as cond } from 'cond-entry';
import { entry as dual } from 'dual-entry';

interface FetchEvent {
  type: string;
  request?: { url: string };
}

async function answer(url: URL): Promise<Response> {
  if (url.pathname.endsWith('/entries')) {
    return Response.json({ dual, cond, hash: createHash('sha256').update('gb-deps').digest('hex') });
  }
  if (url.pathname.endsWith('/fetch')) {
    try {
      const response = await fetch(url.searchParams.get('to') ?? '');
      return Response.json({ resolved: response.status, body: await response.text() });
    } catch (error) {
      return Response.json({ rejected: (error as Error).constructor.name, message: (error as Error).message });
    }
  }
  if (url.pathname.endsWith('/gzip')) {
    return new Response('compressed by the runtime', {
      headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
    });
  }
  return Response.json({ error: `no route ${url.pathname}` }, { status: 404 });
}

export default {
  async fetch(request: Request): Promise<Response> {
    if (request.method === 'GET') return new Response('no such route', { status: 500 });
    const event = JSON.parse((await request.formData()).get('event') as string) as FetchEvent;
    if (event.type !== 'fetch' || event.request === undefined) {
      return Response.json({ error: `${event.type} is not handled` }, { status: 406 });
    }
    return answer(new URL(event.request.url));
  },
};
