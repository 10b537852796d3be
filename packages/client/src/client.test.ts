/**
 * @portico/client against a real platform on each back end: the README's sync script runs as
 * written (twice: a sync runs again), what it did reads back through the client, and a refused
 * call is a PorticoError that says which request and why, with nothing changed.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlatform, startPlatform } from '../../platform/src/server.js';
import { backends } from '../../platform/src/test-support/backends.js';
import { createPorticoClient, type PorticoClient, PorticoError, unwrap } from './index.js';

const run = promisify(execFile);
const packageDir = new URL('..', import.meta.url).pathname;

/** The README's sync example: the js block after the `<!-- sync-example -->` marker. */
function readmeExample(): string {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const found = /<!-- sync-example -->\n```js\n([\s\S]*?)\n```/.exec(readme);
  if (!found?.[1]) throw new Error('README.md has no ```js block after <!-- sync-example -->');
  return found[1];
}

describe.each(backends)('@portico/client on $name', (backend) => {
  let platform: RunningPlatform;
  let cleanup: (() => Promise<void>) | undefined;
  let admin: PorticoClient;

  beforeAll(async () => {
    const fresh = await backend.fresh();
    cleanup = fresh.cleanup;
    platform = await startPlatform(fresh.config);
    admin = createPorticoClient({ baseUrl: `${platform.url}/`, token: platform.adminToken });
  }, 60_000);

  afterAll(async () => {
    await platform?.close();
    await cleanup?.();
  });

  it("runs the README's sync script as written, and again", { timeout: 60_000 }, async () => {
    // The script imports @portico/client as an operator's would: the built package.
    expect(
      existsSync(new URL('../dist/index.js', import.meta.url)),
      'build @portico/client first (npm run build)',
    ).toBe(true);
    const sync = () =>
      run(process.execPath, ['--input-type=module', '--eval', readmeExample()], {
        cwd: packageDir,
        env: { ...process.env, PORTICO_URL: platform.url, PORTICO_ADMIN_TOKEN: platform.adminToken },
        timeout: 30_000,
      });
    const first = await sync();
    expect(first.stdout).toMatch(new RegExp(`^sign-in link for ada: ${platform.url}/orgs/acme#code=\\S+$`, 'm'));
    expect(first.stdout).toContain('event handbook-rev-42 accepted');
    const again = await sync();
    expect(again.stdout).toContain('event handbook-rev-42 was sent before');

    const org = await unwrap(admin.GET('/v1/orgs/{org}', { params: { path: { org: 'acme' } } }));
    expect(org.spaces.map((space) => space.id)).toEqual(['handbook']);
    expect(org.members).toEqual([expect.objectContaining({ id: 'ada', role: 'admin' })]);
    const event = await unwrap(admin.GET('/v1/events/{eventId}', { params: { path: { eventId: 'handbook-rev-42' } } }));
    expect(event.type).toBe('space_content_updated');
  });

  it('answers typed data, and a PorticoError naming the request when the server refuses', async () => {
    const created = await unwrap(admin.POST('/v1/orgs', { body: { id: 'globex', title: 'Globex' } }));
    expect(created).toMatchObject({ id: 'globex', title: 'Globex' });

    const refused = await unwrap(
      admin.PUT('/v1/orgs/{org}/members/{user}', {
        params: { path: { org: 'globex', user: 'nobody' } },
        body: { role: 'admin' },
      }),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PorticoError);
    expect(refused).toMatchObject({ status: 404, code: 'not_found' });
    expect((refused as Error).message).toMatch(/^PUT \/v1\/orgs\/globex\/members\/nobody answered 404 not_found: \S/);
    const org = await unwrap(admin.GET('/v1/orgs/{org}', { params: { path: { org: 'globex' } } }));
    expect(org.members).toEqual([]);

    // Without a token the call is refused, and says so.
    const anonymous = createPorticoClient({ baseUrl: platform.url });
    const unauthorized = await unwrap(anonymous.GET('/v1/orgs')).catch((error: unknown) => error);
    expect(unauthorized).toMatchObject({ status: 401, code: 'unauthorized' });
    // The raw answer stays available, as openapi-fetch gives it.
    const { data, error, response } = await anonymous.GET('/v1/orgs');
    expect([data, response.status]).toEqual([undefined, 401]);
    expect(error).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('refuses a client made without a server address or with an empty token', () => {
    expect(() => createPorticoClient({ baseUrl: undefined as unknown as string })).toThrow(/baseUrl must be/);
    expect(() => createPorticoClient({ baseUrl: platform.url, token: '' })).toThrow(/token is empty/);
  });
});
