/**
 * The composition, in-process and without a database: every operation of the OpenAPI document is
 * served by a mounted route module (none falls through to the not-found answer), and the document
 * is served at /v1/openapi.json. No route here gets as far as a service: each is refused for want
 * of a token, or for its body, or fails on the context that has no database.
 */
import { describe, expect, it } from 'vitest';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import type { ServiceContext } from '../types.js';
import { createApp } from './app.js';

const ctx = { durability: { mark: () => 0, after: async () => {} } } as unknown as ServiceContext;
const app = createApp({ ctx, dispatcher: {} as Dispatcher, adminToken: 'admin-token', version: '0.0.0-test' });

/** A concrete path for a documented one: each `{param}` becomes a value its schema accepts. */
const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'asset' ? 'icon' : 'x1'));

describe('the app', () => {
  it('serves its OpenAPI document', async () => {
    const response = await app.request('/v1/openapi.json');
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, object> };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths).length).toBeGreaterThan(40);
  });

  it('routes every documented operation to a route module', async () => {
    const document = (await (await app.request('/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const unrouted: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const method of Object.keys(operations)) {
        const response = await app.request(concrete(path), {
          method: method.toUpperCase(),
          ...(method === 'get' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }),
        });
        const body = response.headers.get('content-type')?.includes('json') ? await response.json() : undefined;
        if ((body as { error?: { message?: string } })?.error?.message?.startsWith('no route ')) {
          unrouted.push(`${method.toUpperCase()} ${path}`);
        }
      }
    }
    expect(unrouted).toEqual([]);
  });

  it('answers a path no module serves with the not-found error', async () => {
    const response = await app.request('/v1/nothing-here', { method: 'POST' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { code: 'not_found', message: 'no route POST /v1/nothing-here; see /v1/openapi.json' },
    });
  });
});
