/**
 * `portico serve` as a real process (SQLite: a generated admin token needs a data directory of
 * its own; with PostgreSQL the token comes from the environment): on the first start of a data
 * directory it prints a one-time sign-in link to the dashboard, with the code in the URL's
 * fragment, which opens an operator session once; later starts print the dashboard's address only.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeProcess, spawnServe } from '../../../platform/src/test-support/serve-process.js';

let dataDir: string;
const running: ServeProcess[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'portico-serve-'));
});
afterAll(async () => {
  for (const server of running) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  await rm(dataDir, { recursive: true, force: true });
});

async function start() {
  const server = await spawnServe({ PORTICO_DATA_DIR: dataDir });
  running.push(server);
  return server;
}

async function stop(server: ServeProcess) {
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
}

const signIn = (url: string, code: string) =>
  fetch(`${url}/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });

describe('portico serve', () => {
  it('prints a one-time sign-in link on the first start, with the code in the fragment; later starts do not', async () => {
    const first = await start();
    const banner = first.stderr();
    expect(banner).toMatch(/Admin token \(shown once; kept in .*admin-token\): pta_\S+\n/);
    const link = new RegExp(`Dashboard: ${first.url.replaceAll('.', '\\.')}/#code=([\\w-]{43})\\n`).exec(banner);
    expect(link, banner).not.toBeNull();
    expect(banner).toMatch(/a one-time sign-in link, valid for 15 minutes; afterwards sign in with the admin token/);
    const code = link?.[1] as string;

    // The web app posts the fragment's code: an operator session, once.
    const session = await signIn(first.url, code);
    expect(session.status).toBe(201);
    expect(((await session.json()) as { principal: unknown }).principal).toEqual({ kind: 'admin' });
    expect((await signIn(first.url, code)).status).toBe(401);
    // The code never reached a request line, so no log has it.
    await fetch(`${first.url}/`);
    expect(first.stdout()).not.toContain(code);
    await stop(first);

    const second = await start();
    expect(second.stderr()).toMatch(
      new RegExp(`Admin token: in .*admin-token\\nDashboard: ${second.url.replaceAll('.', '\\.')}/\\n`),
    );
    expect(second.stderr()).not.toMatch(/#code=/);
    await stop(second);
  }, 60_000);
});
