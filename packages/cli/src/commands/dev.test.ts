/**
 * `portico dev` as a developer runs it: the real binary, in a directory outside the repository
 * made by `portico new`, against the platform it embeds on 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descendantsOf, isRunning } from '../../../platform/src/hosts/proc.js';
import { readDevServer } from '../dev-server-file.js';
import { run } from '../program.js';
import { bin, type CliProcess, spawnCli } from '../test-support/dev-process.js';
import { memoryIo } from '../test-support/memory-io.js';

const source = (text: string) => `import { createComponent, createIntegration } from '@portico/runtime';

const banner = createComponent({
  componentId: 'banner',
  async render() {
    return { type: 'block', children: [{ type: 'text', children: '${text}' }] };
  },
});

console.info('module loaded: ${text}');

function refuse(revision: string): never {
  throw new Error(\`cannot handle revision \${revision}\`);
}

export default createIntegration({
  components: [banner],
  async fetch(request) {
    return Response.json({ received: true, method: request.method });
  },
  events: {
    async installation_setup(_event, context) {
      console.log(\`set up: \${context.environment.status}\`);
    },
    async space_content_updated(event) {
      console.warn(\`content updated in \${event.spaceId}: \${event.revisionId}\`);
      if (event.revisionId === 'refused') refuse(event.revisionId);
    },
  },
});
`;
/** The line of `throw` in `source`, where a stack trace must point. */
const THROW_LINE =
  source('')
    .split('\n')
    .findIndex((line) => line.includes('throw new Error')) + 1;

let root: string;
let dir: string;
let dev: CliProcess;
let blocker: Server;
let blockedPort: number;

async function portico(args: string[], cwd: string) {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...args], { cwd });
  return stdout + stderr;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'portico-dev-'));
  await portico(['new', 'dev-demo', '--organization', 'acme', '--yes'], root);
  dir = join(root, 'dev-demo');
  // As a developer does: the scaffold's dependencies link the checkout's packages (file:).
  await promisify(execFile)('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir });
  const manifest = await readFile(join(dir, 'platform-manifest.yaml'), 'utf8');
  await writeFile(join(dir, 'platform-manifest.yaml'), manifest.replace('scopes: []', 'scopes: [space:content:read]'));
  await writeFile(join(dir, 'src/index.ts'), source('version 0'));
  // The port asked for is taken: dev takes the next free one.
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  blockedPort = (blocker.address() as { port: number }).port;
  dev = spawnCli(['dev', '--port', String(blockedPort)], { cwd: dir });
  await dev.waitFor(/Ctrl-C stops/, 60_000);
}, 90_000);

afterAll(async () => {
  dev?.child.kill('SIGKILL');
  await dev?.exited;
  await new Promise((resolve) => blocker?.close(resolve));
  await rm(root, { recursive: true, force: true });
});

const server = () => {
  const found = readDevServer(dir);
  if (!found) throw new Error(`no dev-server.json in ${dir}`);
  return found;
};

async function admin(path: string, body?: unknown) {
  const response = await fetch(`${server().api}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${server().adminToken()}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: await response.json() };
}

async function render(): Promise<string> {
  const { status, body } = await admin(`/v1/installations/${server().installations.space}/components/banner/render`, {
    props: {},
  });
  expect(status).toBe(200);
  return JSON.stringify(body.element);
}

describe('portico dev', () => {
  it('starts on the next free port and prints the dashboard link, the public endpoints and the admin token file', async () => {
    const out = dev.stdout();
    expect(dev.stderr()).toContain(`port ${blockedPort} is taken; using `);
    const found = server();
    expect(found).toMatchObject({ pid: dev.child.pid, space: 'dev-space', site: 'dev-site', integration: 'dev-demo' });
    expect(Number(new URL(found.api).port)).toBeGreaterThan(blockedPort);
    expect(found.adminTokenFile).toBe(join(dir, '.portico-dev', 'admin-token'));
    // The data directory keeps itself out of version control.
    expect(readFileSync(join(dir, '.portico-dev', '.gitignore'), 'utf8')).toBe('*\n');
    expect(out).toContain(`admin token in ${found.adminTokenFile}`);
    expect(out).toContain(`Dashboard: ${found.api}/installations/${found.installations.organization}#code=`);
    for (const id of Object.values(found.installations)) {
      expect(out).toContain(`Public endpoint: ${found.api}/v1/installations/${id}/public`);
    }
    // The setup events of the three installations went out and were printed.
    await dev.waitFor(
      /installation_setup → organization acme \(inst_\w+\): 204 in \d+ ms\n {2}│ log {3}set up: active\n/,
      10_000,
    );
  });

  it('answers the dashboard link: the page, and its one-time code signs in once', async () => {
    const link = (dev.stdout().match(/Dashboard: (\S+)/) as RegExpMatchArray)[1] as string;
    const url = new URL(link);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const code = new URLSearchParams(url.hash.slice(1)).get('code');
    const signIn = () =>
      fetch(`${url.origin}/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code }),
      });
    expect((await signIn()).status).toBe(201);
    expect((await signIn()).status).toBe(401);
  });

  it('answers on each public endpoint and prints the dispatch', async () => {
    for (const id of Object.values(server().installations)) {
      const from = dev.output().length;
      const response = await fetch(`${server().api}/v1/installations/${id}/public`, { method: 'POST', body: '{}' });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ received: true, method: 'POST' });
      await dev.waitFor(new RegExp(`fetch → \\w+ [\\w-]+ \\(${id}\\)\\: 200 in \\d+ ms`), 5000, from);
    }
  });

  it('runs a saved change within 1 s and shows it in the next render (median of 5 edits)', async () => {
    expect(await render()).toContain('version 0');
    const times: number[] = [];
    for (let edit = 1; edit <= 5; edit++) {
      const from = dev.output().length;
      const saved = performance.now();
      await writeFile(join(dir, 'src/index.ts'), source(`version ${edit}`));
      // Each render is a request a person could make: the first that shows the edit counts.
      for (;;) {
        if ((await render()).includes(`version ${edit}`)) break;
        if (performance.now() - saved > 10_000) throw new Error(`edit ${edit} was not live after 10 s`);
      }
      times.push(performance.now() - saved);
      await dev.waitFor(
        /Reloaded: dev-demo version \d+ is live, \d+ ms after the change \(src\/index\.ts\)/,
        5000,
        from,
      );
    }
    const median = [...times].sort((a, b) => a - b)[2] as number;
    console.log(
      `portico dev: save to live ${times.map((t) => Math.round(t)).join(', ')} ms; median ${Math.round(median)} ms`,
    );
    expect(median).toBeLessThan(1000);
  }, 60_000);

  it('prints a syntax error with file:line:col and keeps the previous version running', async () => {
    const from = dev.output().length;
    await writeFile(join(dir, 'src/index.ts'), source('version 6').replace('export default', 'export default {'));
    const [line] = await dev.waitFor(/^src\/index\.ts:\d+:\d+: .+$/m, 5000, from);
    expect(line).toMatch(/^src\/index\.ts:\d+:\d+: /);
    await dev.waitFor(
      /Not reloaded \(src\/index\.ts changed\): fix the problem above; version \d+ keeps running/,
      5000,
      from,
    );
    expect(await render()).toContain('version 5');
    // A manifest error: the same.
    const manifest = await readFile(join(dir, 'platform-manifest.yaml'), 'utf8');
    await writeFile(join(dir, 'platform-manifest.yaml'), manifest.replace('visibility: private', 'visibility: privat'));
    await dev.waitFor(/platform-manifest\.yaml:\d+:\d+: `visibility` must be one of/, 5000, from);
    await writeFile(join(dir, 'platform-manifest.yaml'), manifest);
    await writeFile(join(dir, 'src/index.ts'), source('version 7'));
    await dev.waitFor(/Reloaded: dev-demo version \d+ is live/, 5000, from);
    expect(await render()).toContain('version 7');
  });

  it('grants a scope the developer adds to the manifest at the next reload (their own consent)', async () => {
    const from = dev.output().length;
    const manifest = await readFile(join(dir, 'platform-manifest.yaml'), 'utf8');
    await writeFile(
      join(dir, 'platform-manifest.yaml'),
      manifest.replace('scopes: [space:content:read]', 'scopes: [space:content:read, space:git:sync]'),
    );
    await dev.waitFor(/Reloaded: dev-demo version \d+ is live/, 5000, from);
    const read = await admin(`/v1/installations/${server().installations.organization}`);
    expect(read.body.scopes).toEqual({ granted: ['space:content:read', 'space:git:sync'], requested: [] });
    const restored = dev.output().length;
    await writeFile(join(dir, 'platform-manifest.yaml'), manifest);
    await dev.waitFor(/Reloaded: dev-demo version \d+ is live/, 5000, restored);
  });

  it("prints the integration's console output with its event, and stack traces at the TypeScript lines", async () => {
    const from = dev.output().length;
    const sent = await admin('/v1/events', { type: 'space_content_updated', spaceId: 'dev-space', revisionId: 'r1' });
    expect(sent.status).toBe(202);
    await dev.waitFor(
      /space_content_updated → space dev-space \(inst_\w+\): 204 in \d+ ms\n {2}│ warn {2}content updated in dev-space: r1\n/,
      10_000,
      from,
    );
    await admin('/v1/events', { type: 'space_content_updated', spaceId: 'dev-space', revisionId: 'refused' });
    await dev.waitFor(/space_content_updated → space dev-space \(inst_\w+\): 500 in \d+ ms/, 10_000, from);
    await dev.waitFor(new RegExp(`│ +at refuse \\(src/index\\.ts:${THROW_LINE}:\\d+\\)`), 5000, from);
    // What the worker printed outside any dispatch (at import) is shown too, as it came.
    await dev.waitFor(/dev-demo \(outside a dispatch\)\n {2}│ module loaded: /, 5000, 0);
  });

  it('publishes nothing for a save that changes nothing published, and refuses a second portico dev there', async () => {
    const before = await admin('/v1/integrations/dev-demo');
    const from = dev.output().length;
    await writeFile(join(dir, 'README.md'), '# Dev demo\n\nChanged.\n');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(dev.output().slice(from)).not.toMatch(/Reloaded|Not reloaded/);
    expect((await admin('/v1/integrations/dev-demo')).body.version).toBe(before.body.version);

    const io = memoryIo(dir);
    expect(await run(['dev'], io)).toBe(1);
    expect(io.stderr).toBe(
      `portico dev: portico dev already runs for ${dir} (pid ${dev.child.pid}, ${server().api}): stop it first (Ctrl-C in its terminal, or kill ${dev.child.pid})\n`,
    );
  });

  it('stops on SIGINT: every process it started ends, and dev-server.json is removed', async () => {
    const pid = dev.child.pid as number;
    const below = descendantsOf([pid]);
    expect(below.map((p) => p.comm)).toContain('workerd');
    dev.child.kill('SIGINT');
    expect(await dev.exited).toBe(0);
    expect(dev.stderr()).toMatch(/portico dev: stopping \(SIGINT\)\nportico dev: stopped\n/);
    const deadline = Date.now() + 5000;
    while (below.some((p) => isRunning(p.pid, p.startTicks)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(below.filter((p) => isRunning(p.pid, p.startTicks)).map((p) => `${p.pid} ${p.comm}`)).toEqual([]);
    expect(readDevServer(dir)).toBeUndefined();
    expect(() => readFileSync(join(dir, '.portico-dev', 'dev-server.json'))).toThrow(/ENOENT/);
  });

  it('keeps its organization, installations and admin token for the next run; --fresh starts over', async () => {
    const token = readFileSync(join(dir, '.portico-dev', 'admin-token'), 'utf8');
    const ids = [...dev.stdout().matchAll(/Public endpoint: \S+\/installations\/(inst_\w+)\/public/g)].map((m) => m[1]);
    expect(ids).toHaveLength(3);
    const again = spawnCli(['dev', '--port', '0'], { cwd: dir });
    try {
      await again.waitFor(/Ctrl-C stops/, 60_000);
      expect(again.stdout()).toMatch(/dev-demo version \d+ is installed/);
      expect(Object.values(server().installations).sort()).toEqual([...ids].sort());
      expect(readFileSync(server().adminTokenFile, 'utf8')).toBe(token);
    } finally {
      again.child.kill('SIGINT');
      expect(await again.exited).toBe(0);
    }
    const fresh = spawnCli(['dev', '--port', '0', '--fresh'], { cwd: dir });
    try {
      await fresh.waitFor(/Ctrl-C stops/, 60_000);
      expect(fresh.stderr()).toContain(`--fresh: removed ${join(dir, '.portico-dev')}`);
      expect(fresh.stdout()).toMatch(/dev-demo version 1 is installed/);
      for (const id of Object.values(server().installations)) expect(ids).not.toContain(id);
      expect(readFileSync(server().adminTokenFile, 'utf8')).not.toBe(token);
    } finally {
      fresh.child.kill('SIGINT');
      expect(await fresh.exited).toBe(0);
    }
  }, 90_000);
});

describe('portico dev refuses to start', () => {
  let bad: string;
  beforeAll(async () => {
    bad = await mkdtemp(join(tmpdir(), 'portico-dev-bad-'));
  });
  afterAll(async () => {
    await rm(bad, { recursive: true, force: true });
  });

  const devIn = async (cwd: string, args: string[] = [], env: Record<string, string> = {}) => {
    const io = memoryIo(cwd);
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      return { code: await run(['dev', ...args], io), err: io.stderr, out: io.stdout };
    } finally {
      process.env = saved;
    }
  };

  it('outside an integration directory', async () => {
    const result = await devIn(bad);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/platform-manifest\.yaml does not exist: run portico dev in an integration's directory/);
  });

  it('with a bad --port', async () => {
    await writeFile(join(bad, 'platform-manifest.yaml'), 'name: x\n');
    const result = await devIn(bad, ['--port', 'eighty']);
    expect(result).toMatchObject({
      code: 1,
      err: 'portico dev: --port must be a port number (0-65535), got "eighty"\n',
    });
  });

  it('with an invalid manifest, printing each problem at its line and column', async () => {
    await writeFile(
      join(bad, 'platform-manifest.yaml'),
      'name: bad-one\ntitle: Bad\ndescription: d\norganization: acme\nvisibility: publik\nscopes: []\nscript: src/index.ts\n',
    );
    const result = await devIn(bad);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^platform-manifest\.yaml:5:13: `visibility` must be one of/m);
  });

  it('with a script that does not build, at its file, line and column', async () => {
    await writeFile(
      join(bad, 'platform-manifest.yaml'),
      'name: bad-one\ntitle: Bad\ndescription: d\norganization: acme\nvisibility: private\nscopes: []\nscript: src/index.ts\n',
    );
    await mkdir(join(bad, 'src'), { recursive: true });
    await writeFile(join(bad, 'src/index.ts'), 'export default {\n  fetch() {\n    return 1 +;\n  },\n};\n');
    const result = await devIn(bad);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^src\/index\.ts:3:15: Unexpected ";"$/m);
  });

  it('without a secret the manifest needs, naming it and how to set it', async () => {
    await writeFile(join(bad, 'src/index.ts'), 'export default { fetch: () => new Response("ok") };\n');
    await writeFile(
      join(bad, 'platform-manifest.yaml'),
      'name: bad-one\ntitle: Bad\ndescription: d\norganization: acme\nvisibility: private\nscopes: []\nscript: src/index.ts\nsecrets:\n  KEY: ${{ env.BAD_ONE_KEY }}\n',
    );
    const result = await devIn(bad, [], { BAD_ONE_KEY: '' });
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      `portico dev: the manifest's secrets need BAD_ONE_KEY (for the secret \`KEY\`), which is not set: add a line such as \`BAD_ONE_KEY=…\` to ${join(bad, '.env')}, or set it in the environment (\`export BAD_ONE_KEY=…\`)\n`,
    );
  });
});
