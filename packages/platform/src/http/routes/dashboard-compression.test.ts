/**
 * The dashboard's scripts go compressed (issue 41, "What was seen" 14), on the real server over
 * HTTP: Brotli or gzip as the request accepts, the same bytes once decompressed, an ETag per
 * encoding, and small files and images as they are. The files do not touch the database: SQLite.
 */

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlatform, startPlatform } from '../../server.js';
import { backends } from '../../test-support/backends.js';
import { acceptedEncoding } from './dashboard-files.js';

const SCRIPT = Array.from({ length: 2000 }, (_, i) => `export const value${i} = "the dashboard's script ${i}";`).join(
  '\n',
);

/** A GET (or HEAD) with raw bytes back: no client decompresses anything on the way. */
function get(url: string, headers: Record<string, string>, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const req = request(url, { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      });
      req.on('error', reject);
      req.end();
    },
  );
}

describe('the dashboard files compressed', () => {
  let dist: string;
  let platform: RunningPlatform;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    dist = await mkdtemp(join(tmpdir(), 'portico-dist-'));
    await mkdir(join(dist, 'assets'));
    await writeFile(join(dist, 'index.html'), '<!doctype html><html><head></head><body></body></html>');
    await writeFile(join(dist, 'assets', 'index-AbCd1234.js'), SCRIPT);
    await writeFile(join(dist, 'assets', 'logo-AbCd1234.png'), Buffer.alloc(4096, 7));
    const store = await (backends[0] as (typeof backends)[number]).fresh();
    platform = await startPlatform(store.config, { dashboardDir: dist });
    cleanup = store.cleanup;
  });
  afterAll(async () => {
    await platform?.close();
    await cleanup?.();
    await rm(dist, { recursive: true, force: true });
  });

  it('sends a script in Brotli when accepted, else gzip, else as it is; the same bytes each way', async () => {
    const url = `${platform.url}/assets/index-AbCd1234.js`;
    const br = await get(url, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('accept-encoding');
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    expect(br.body.length).toBeLessThan(SCRIPT.length / 5);
    expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);

    const gz = await get(url, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);

    const plain = await get(url, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);

    // Brotli refused with q=0: gzip.
    expect((await get(url, { 'accept-encoding': 'br;q=0, gzip' })).headers['content-encoding']).toBe('gzip');

    // Each encoding has its own ETag, and each revalidates.
    expect(br.headers.etag).not.toBe(gz.headers.etag);
    expect(br.headers.etag).not.toBe(plain.headers.etag);
    const again = await get(url, { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const head = await get(url, { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.headers['content-length']).toBe(br.headers['content-length']);
    expect(head.body.length).toBe(0);
  });

  it('leaves small files and images as they are', async () => {
    const index = await get(`${platform.url}/`, { 'accept-encoding': 'br' });
    expect(index.headers['content-encoding']).toBeUndefined();
    expect(index.body.toString()).toMatch(/^<!doctype html>/);
    const png = await get(`${platform.url}/assets/logo-AbCd1234.png`, { 'accept-encoding': 'br' });
    expect(png.headers['content-encoding']).toBeUndefined();
    expect(png.body.length).toBe(4096);
  });

  it('reads Accept-Encoding as browsers and proxies send it', () => {
    expect(acceptedEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(acceptedEncoding('gzip;q=1.0, br;q=0')).toBe('gzip');
    expect(acceptedEncoding('*')).toBe('br');
    expect(acceptedEncoding('identity')).toBeUndefined();
    expect(acceptedEncoding(undefined)).toBeUndefined();
    expect(acceptedEncoding('*;q=0, gzip')).toBe('gzip');
  });
});
