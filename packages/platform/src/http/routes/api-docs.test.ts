/**
 * The reference page's routes on their own (the page in Chromium is packages/dashboard/test/api-docs.test.ts):
 * the page and its policy, the renderer's script as the browser accepts it, and a clear 503 while
 * the renderer is not installed.
 */
import { readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { API_DOCS_POLICY, apiDocsRoutes, findRedocBundle } from './api-docs.js';

describe('the reference page routes', () => {
  const app = apiDocsRoutes();
  const bundle = findRedocBundle() as string;

  it('answers the page, which loads the document and the renderer from this server alone', async () => {
    const response = await app.request('/v1/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(API_DOCS_POLICY);
    const html = await response.text();
    expect(html).toContain('<redoc spec-url="/v1/openapi.json"');
    expect(html).toContain('<script src="/v1/docs/redoc.standalone.js"></script>');
    expect(html.match(/(src|href)="[^"]*"/g)?.every((attr) => /="\//.test(attr))).toBe(true);
    expect((await app.request('/docs')).headers.get('location')).toBe('/v1/docs');
  });

  it('serves the renderer as Brotli, gzip or as it is, and answers 304 to its etag', async () => {
    const original = readFileSync(bundle);
    const br = await app.request('/v1/docs/redoc.standalone.js', { headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).equals(original)).toBe(true);
    const gz = await app.request('/v1/docs/redoc.standalone.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).equals(original)).toBe(true);
    const plain = await app.request('/v1/docs/redoc.standalone.js', { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(Buffer.from(await plain.arrayBuffer()).equals(original)).toBe(true);
    const again = await app.request('/v1/docs/redoc.standalone.js', {
      headers: { 'accept-encoding': 'br', 'if-none-match': br.headers.get('etag') ?? '' },
    });
    expect(again.status).toBe(304);
  });

  it('says how to install the renderer while it is missing', async () => {
    const missing = apiDocsRoutes({ bundle: '/nowhere/redoc.standalone.js' });
    const response = await missing.request('/v1/docs/redoc.standalone.js');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: { code: 'docs_not_installed', message: expect.stringMatching(/npm install.*\/v1\/openapi\.json/) },
    });
  });
});
