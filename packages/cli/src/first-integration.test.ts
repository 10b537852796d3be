/**
 * README's "Write your first integration", as a new user follows it, in a directory outside the
 * repository: `portico new` (its package.json links the checkout's packages), `npm install`,
 * `npm test` (the test it writes passes as created), `portico check`, `portico dev`; then, with
 * the dev platform running, `portico emit` of each event type of spec 2.9 and 6.1 reaching the
 * integration, `portico tail` showing a dispatch as it happens, and a test event delivered by the
 * built-in webhook integration to a receiver on 127.0.0.1 (`install`, `configure`, `emit --wait`).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KINDS } from './event-fields.js';
import { type CliProcess, spawnCli } from './test-support/dev-process.js';
import { portico } from './test-support/server-world.js';

const checkoutBin = new URL('../bin/portico.js', import.meta.url).pathname;
let root: string;
let dir: string;
let dev: CliProcess | undefined;

async function sh(command: string, args: string[], cwd: string, timeout = 180_000) {
  try {
    const env = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', PORTICO_API: '', PORTICO_TOKEN: '' };
    const { stdout, stderr } = await promisify(execFile)(command, args, { cwd, timeout, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'portico-first-'));
  // `npx portico new ../my-integration …` in the checkout runs this file.
  const created = await sh(
    process.execPath,
    [checkoutBin, 'new', join(root, 'my-integration'), '--organization', 'acme', '--yes'],
    root,
  );
  expect(created.code, created.stderr).toBe(0);
  expect(created.stdout).toMatch(/package.json links them to the checkout at .* \(file: links/);
  dir = join(root, 'my-integration');
  const installed = await sh(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
    dir,
  );
  expect(installed.code, installed.stderr).toBe(0);
}, 240_000);
afterAll(async () => {
  if (dev) {
    dev.child.kill('SIGINT');
    expect(await dev.exited).toBe(0);
  }
  if (root) await rm(root, { recursive: true, force: true });
});

describe('Write your first integration', () => {
  it('passes its own test and its check as created', async () => {
    const tested = await sh('npm', ['test'], dir);
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toMatch(/Tests +3 passed/);
    const checked = await sh('npx', ['portico', 'check'], dir);
    expect(checked).toMatchObject({ code: 0, stderr: expect.stringContaining('my-integration is valid') });
  }, 120_000);

  it('runs under portico dev, and receives each event type of spec 2.9 and 6.1 that portico emit sends', async () => {
    const manifest = await readFile(join(dir, 'platform-manifest.yaml'), 'utf8');
    await writeFile(
      join(dir, 'platform-manifest.yaml'),
      manifest.replace(
        'scopes: []',
        'scopes: [space:content:read, space:metadata:read, space:git:sync, site:views:read]',
      ),
    );
    await writeFile(join(dir, 'src/index.ts'), EVERY_EVENT);
    dev = spawnCli(['dev', '--port', '0'], { cwd: dir });
    await dev.waitFor(/Ctrl-C stops/, 90_000);

    for (const { type } of EVENT_KINDS) {
      const result = await portico(['emit', type, '--wait'], dir);
      expect(result.code, `${type}: ${result.stdout}${result.stderr}`).toBe(0);
      const shown = result.stdout + result.stderr;
      expect(shown, type).toMatch(
        new RegExp(
          `${type} → my-integration in (organization|space|site) \\S+ \\(inst_\\w+\\): 20\\d in \\d+ ms\\n  │ log   handled ${type}`,
        ),
      );
      if (type === 'ui_render') expect(JSON.parse(result.stdout)).toMatchObject({ element: { type: 'block' } });
      else expect(result.stdout.split('\n')[0], type).toMatch(type.endsWith('_setup') ? /^setup_\d+$/ : /^evt_\w+$/);
    }
  }, 150_000);

  it('portico tail, run in the directory, shows a dispatch as it happens', async () => {
    const tail = spawnCli(['tail'], { cwd: dir });
    try {
      await tail.waitFor(
        /following my-integration in organization acme .*, my-integration in space dev-space .*, my-integration in site dev-site/,
      );
      const eventId = (
        await portico(['emit', 'space_content_updated', '--field', 'revisionId=live'], dir)
      ).stdout.trim();
      expect(eventId).toMatch(/^evt_/);
      await tail.waitFor(
        /space_content_updated → my-integration in space dev-space \(inst_\w+\): 204 in \d+ ms\n {2}│ log {3}handled space_content_updated/,
      );
      tail.child.kill('SIGINT');
      expect(await tail.exited).toBe(0);
    } finally {
      tail.child.kill('SIGKILL');
    }
  }, 60_000);

  it('delivers a test event to a receiver through the built-in webhook integration', async () => {
    const bodies: string[] = [];
    const receiver: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        bodies.push(body);
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    try {
      const installed = await portico(['install', 'webhook', '--space', 'dev-space'], dir);
      expect(installed.code, installed.stderr).toBe(0);
      const space = /^(inst_\w+) space dev-space pending$/m.exec(installed.stdout)?.[1] as string;
      expect(space).toBeDefined();
      const configured = await portico(['configure', space, `url=${url}`, 'space_content_updated=true'], dir);
      expect(configured).toMatchObject({ code: 0, stdout: `${space} active\n` });
      const sent = await portico(['emit', 'space_content_updated', '--wait'], dir);
      expect(sent.code, sent.stderr).toBe(0);
      expect(sent.stdout).toMatch(new RegExp(`→ ${url}: delivered \\(attempt 1: 200 in \\d+ ms\\)`));
      const eventId = sent.stdout.split('\n')[0];
      expect(bodies.map((b) => JSON.parse(b))).toContainEqual(
        expect.objectContaining({
          eventId,
          type: 'space_content_updated',
          spaceId: 'dev-space',
          installationId: space,
        }),
      );
      // Without INSTALLATION, deliveries lists those of every installation in the dev places.
      const listed = await portico(['deliveries'], dir);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(
        new RegExp(
          `^dlv_\\w+ +${space} +delivered +space_content_updated +${eventId} +1 +200 in \\d+ ms .* ${url}$`,
          'm',
        ),
      );
    } finally {
      receiver.close();
    }
  }, 60_000);
});

/** An integration that logs every event it is sent, with a component for ui_render. */
const EVERY_EVENT = `import { createComponent, createIntegration } from '@portico/runtime';

const hello = createComponent({
  componentId: 'hello',
  async render() {
    console.log('handled ui_render');
    return { type: 'block', children: [{ type: 'text', children: 'Hello' }] };
  },
});

const handle = async (event: { type: string }) => {
  console.log(\`handled \${event.type}\`);
};

export default createIntegration({
  components: [hello],
  async fetch() {
    return Response.json({ received: true });
  },
  events: {
${EVENT_KINDS.filter((k) => k.type !== 'ui_render')
  .map((k) => `    ${k.type}: handle,`)
  .join('\n')}
  },
});
`;
