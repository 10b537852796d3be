/**
 * The SDK is fetch-native: bundled for a neutral platform (any `node:` import fails the build)
 * and run in workerd through Miniflare, an integration answers every envelope exactly as it
 * does in Node.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Integration } from './integration.js';
import { envelopeRequest, environment } from './test-support/envelopes.js';
import type { PlatformEvent } from './types.js';

const examples = fileURLToPath(new URL('../../../examples/', import.meta.url));

/** One ESM file for workerd, from a file or from source text (resolved from the examples folder). */
async function bundle(input: { entry: string } | { source: string }): Promise<string> {
  const result = await build({
    ...('entry' in input
      ? { entryPoints: [input.entry] }
      : { stdin: { contents: input.source, resolveDir: examples, loader: 'ts' as const } }),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['source'],
    mainFields: ['module', 'main'],
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

const envelopes: [string, () => Promise<Request>][] = [
  ['GET /v1', async () => new Request('http://integration.test/v1')],
  [
    'an unknown version',
    () => envelopeRequest({ type: 'installation_setup', eventId: 'e1', status: 'active' }, { path: '/v9' }),
  ],
  ['installation_setup', () => envelopeRequest({ type: 'installation_setup', eventId: 'e2', status: 'active' })],
  ['an event without a handler', () => envelopeRequest({ type: 'space_view', eventId: 'e3', spaceId: 's' })],
  [
    'ui_render',
    () =>
      envelopeRequest({
        type: 'ui_render',
        eventId: 'e4',
        componentId: 'greeting',
        props: { name: 'Ada' },
      } as PlatformEvent),
  ],
  [
    'ui_render with an action',
    () =>
      envelopeRequest({
        type: 'ui_render',
        eventId: 'e5',
        componentId: 'greeting',
        state: { count: 41 },
        action: { action: 'say-hello' },
      } as PlatformEvent),
  ],
  [
    'an unknown component',
    () => envelopeRequest({ type: 'ui_render', eventId: 'e6', componentId: 'nope' } as PlatformEvent),
  ],
  [
    'a malformed envelope',
    async () =>
      new Request('http://integration.test/v1', {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=zz' },
        body: '--zz\r\nbroken',
      }),
  ],
];

describe('@portico/runtime in workerd', () => {
  let miniflare: Miniflare;
  let node: Integration;

  beforeAll(async () => {
    const entry = `${examples}hello-world/src/index.ts`;
    miniflare = new Miniflare({ modules: true, script: await bundle({ entry }), compatibilityDate: '2025-09-01' });
    node = (await import('@portico-examples/hello-world')).default;
  }, 60_000);
  afterAll(() => miniflare?.dispose());

  for (const [label, make] of envelopes) {
    it(`answers ${label} as Node does`, async () => {
      const inNode = await node.fetch(await make());
      const request = await make();
      const inWorkerd = await miniflare.dispatchFetch(request.url, {
        method: request.method,
        headers: [...request.headers],
        body: request.method === 'POST' ? new Uint8Array(await request.arrayBuffer()) : undefined,
      });
      expect(inWorkerd.status).toBe(inNode.status);
      expect(inWorkerd.headers.get('content-type')).toBe(inNode.headers.get('content-type'));
      const [workerdBody, nodeBody] = [await inWorkerd.text(), await inNode.text()];
      if (label === 'a malformed envelope') {
        // The multipart parsers differ in wording; both refuse it with the same code.
        expect(JSON.parse(workerdBody).error.code).toBe(JSON.parse(nodeBody).error.code);
      } else {
        expect(workerdBody).toBe(nodeBody);
      }
    });
  }

  it('runs a public-endpoint request with a binary body byte for byte', async () => {
    const echo = `
      import { createIntegration } from '@portico/runtime';
      export default createIntegration({
        async fetch(request) {
          const bytes = new Uint8Array(await request.arrayBuffer());
          return new Response(bytes.reverse(), { status: 202, headers: { 'x-method': request.method, 'x-query': new URL(request.url).search } });
        },
      });`;
    const script = await build({
      stdin: { contents: echo, resolveDir: examples, loader: 'ts' },
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['source'],
      mainFields: ['module', 'main'],
      write: false,
    });
    const worker = new Miniflare({
      modules: true,
      script: script.outputFiles[0]?.text ?? '',
      compatibilityDate: '2025-09-01',
    });
    try {
      const body = new Uint8Array(1024).map((_, i) => (i * 7) % 256);
      const request = await envelopeRequest(
        {
          type: 'fetch',
          eventId: 'f1',
          request: {
            method: 'PATCH',
            url: 'https://p.test/public/x?a=1',
            headers: [['content-type', 'application/octet-stream']],
          },
        },
        { body, environment },
      );
      const response = await worker.dispatchFetch(request.url, {
        method: 'POST',
        headers: [...request.headers],
        body: new Uint8Array(await request.arrayBuffer()),
      });
      expect(response.status).toBe(202);
      expect(response.headers.get('x-method')).toBe('PATCH');
      expect(response.headers.get('x-query')).toBe('?a=1');
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(body.slice().reverse());
    } finally {
      await worker.dispose();
    }
  }, 60_000);
});
