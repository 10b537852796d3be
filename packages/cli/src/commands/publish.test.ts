import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningPlatform, startPlatform } from '@portico/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE } from '../../../manifest/src/test-support/manifests.js';
import { tempDir } from '../../../manifest/src/test-support/temp-dir.js';
import { run } from '../program.js';
import { memoryIo } from '../test-support/memory-io.js';

const examples = new URL('../../../../examples/', import.meta.url).pathname;
let platform: RunningPlatform;
let dataDir: string;
let token: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'portico-publish-'));
  platform = await startPlatform({ port: 0, host: '127.0.0.1', dataDir, allowPrivateNetwork: false });
  const admin = (path: string, body: unknown, method = 'POST') =>
    fetch(`${platform.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${platform.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.json());
  await admin('/v1/orgs', { id: 'acme', title: 'Acme' });
  token = (await admin('/v1/users', { id: 'ada', name: 'Ada' })).token;
  await admin('/v1/orgs/acme/members/ada', {}, 'PUT');
});
afterAll(async () => {
  await platform?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function publish(dir: string, extra: string[] = [], env: Record<string, string> = {}) {
  const io = memoryIo(examples);
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const code = await run(['publish', dir, '--api', platform.url, '--token', token, ...extra], io);
    return { code, out: io.stdout, err: io.stderr };
  } finally {
    process.env = saved;
  }
}

describe('portico publish', () => {
  it('checks, bundles and publishes an example with its secrets from the environment', async () => {
    const result = await publish('hello-world', [], { HELLO_WORLD_API_KEY: 'sk_from_env' });
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toMatch(
      /^Published hello-world version 1 \(\d+\.\d KiB bundled\) to http:\/\/127\.0\.0\.1:\d+\n$/,
    );
    const stored = await platform.ctx.db
      .selectFrom('integration_versions')
      .selectAll()
      .where('integration_name', '=', 'hello-world')
      .executeTakeFirstOrThrow();
    expect(stored.script).toMatch(/componentId: "greeting"/);
    expect(stored.gitbook).toBeNull();
    expect(stored.script).not.toMatch(/from ["']@portico\/runtime["']/);
    expect(JSON.parse(platform.ctx.box.open(stored.secrets as string))).toEqual({ API_KEY: 'sk_from_env' });
    // The icon and preview image the manifest names go with it, byte for byte.
    const assets = await platform.ctx.db
      .selectFrom('integration_assets')
      .selectAll()
      .where('integration_name', '=', 'hello-world')
      .orderBy('asset')
      .execute();
    expect(assets.map((a) => [a.asset, a.path, a.content_type])).toEqual([
      ['icon', 'assets/icon.png', 'image/png'],
      ['preview-0', 'assets/preview.png', 'image/png'],
    ]);
    expect(Buffer.from(assets[0]?.bytes as Uint8Array)).toEqual(
      await readFile(join(examples, 'hello-world/assets/icon.png')),
    );
    expect((await publish('hello-world', [], { HELLO_WORLD_API_KEY: 'k2' })).out).toMatch(/version 2/);
  });

  it('publishes a GitBook-dialect integration: its manifest translated, built with that platform’s conventions', async () => {
    const dir = await tempDir({
      'gitbook-manifest.yaml': `name: gb-tracker
title: Tracker
description: Counts page views
organization: acme
visibility: private
script: ./src/index.ts
target: site
contentSecurityPolicy:
  script-src: [https://cdn.tracker.example, "'self'"]
scopes: [page:feedback:read]
configurations:
  space:
    properties:
      trackingId:
        type: string
envs:
  dev:
    title: Tracker (dev)
`,
      'src/index.ts':
        "import script from './script.raw.js';\nexport default { fetch: () => new Response(MODE + script) };\n",
      'src/script.raw.js': 'console.log("injected");\n',
    });
    const result = await publish(dir);
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toMatch(/^Published gb-tracker version 1 /);
    const stored = await platform.ctx.db
      .selectFrom('integration_versions')
      .selectAll()
      .where('integration_name', '=', 'gb-tracker')
      .executeTakeFirstOrThrow();
    expect(stored.script).toMatch(/"production"/);
    // The .raw.js file is a string in the bundle, not code that runs in the worker.
    expect(stored.script).toMatch(/= 'console\.log\("injected"\);\\n'/);
    expect(JSON.parse(stored.manifest)).toMatchObject({
      scopes: ['site:views:read'],
      configurations: { site: { properties: { trackingId: { type: 'string' } } } },
    });
    expect(stored.manifest_source).toMatch(/^# Translated by portico from .*gitbook-manifest\.yaml\n/);
    // The platform keeps the dialect's facts with the version (not `envs`: the CLI applies one).
    expect(JSON.parse(stored.gitbook as string)).toEqual({
      target: 'site',
      contentSecurityPolicy: { 'script-src': "https://cdn.tracker.example 'self'" },
      configurationComponents: {},
      blocks: {},
    });
  });

  it('names the environment variables that are missing, and publishes nothing', async () => {
    const result = await publish('oauth-connect');
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /set these environment variables first: OAUTH_CLIENT_ID \(for secret CLIENT_ID\), OAUTH_CLIENT_SECRET/,
    );
    const rows = await platform.ctx.db
      .selectFrom('integrations')
      .select('name')
      .where('name', '=', 'oauth-connect')
      .execute();
    expect(rows).toEqual([]);
  });

  it('refuses an invalid manifest with its positioned errors', async () => {
    const dir = await tempDir({ 'platform-manifest.yaml': `${BASE}titel: x\n` });
    const result = await publish(dir);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^platform-manifest.yaml:8:1: unknown key `titel`/m);
    expect(result.err).toMatch(/the manifest is not valid; nothing was published/);
  });

  it('reports a script that does not bundle with its location', async () => {
    const dir = await tempDir({
      'platform-manifest.yaml': `${BASE}script: src/index.ts\n`,
      'src/index.ts': "import { missing } from './nowhere';\nexport default missing;\n",
    });
    const result = await publish(dir);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/src\/index.ts:1:\d+: Could not resolve ".\/nowhere"/);
  });

  it('leaves an internal scope to the platform: published with the operator’s token, refused with a member’s at the scope’s line', async () => {
    const dir = await tempDir({
      'platform-manifest.yaml': `${BASE.replace('name: demo', 'name: internal-demo')}  - site:script:inject\nscript: src/index.ts\n`,
      'src/index.ts': "export default { fetch: () => new Response('ok') };\n",
    });
    const published = async (as: string) => {
      const io = memoryIo(dir);
      const code = await run(['publish', '.', '--api', platform.url, '--token', as], io);
      return { code, out: io.stdout, err: io.stderr };
    };
    const stored = () =>
      platform.ctx.db
        .selectFrom('integration_versions')
        .select(['version', 'manifest'])
        .where('integration_name', '=', 'internal-demo')
        .execute();

    // A member's token: the platform refuses the scope, and the CLI says where the manifest asks for it.
    const refused = await published(token);
    expect(refused.code).toBe(1);
    expect(refused.out).toBe('');
    expect(refused.err).toMatch(
      /^platform-manifest\.yaml:8:5: the scope "site:script:inject" is internal to the platform and cannot be requested by integrations/m,
    );
    expect(refused.err).toMatch(/portico publish: the platform refused it \(400\): /);
    expect(refused.err).not.toMatch(/nothing was published/);
    expect(await stored()).toEqual([]);

    // The operator's token: the same manifest is published, its scope kept.
    const accepted = await published(platform.adminToken);
    expect(accepted).toMatchObject({ code: 0, err: '' });
    expect(accepted.out).toMatch(/^Published internal-demo version 1 /);
    const versions = await stored();
    expect(versions.map((v) => v.version)).toEqual([1]);
    expect(JSON.parse(versions[0]?.manifest ?? '{}').scopes).toEqual(['space:content:read', 'site:script:inject']);
  });

  it('shows the platform refusal, and needs an address and a token', async () => {
    const io = memoryIo(examples);
    expect(await run(['publish', 'public-endpoint', '--api', platform.url, '--token', 'ptu_wrong'], io)).toBe(1);
    expect(io.stderr).toMatch(/the platform refused it \(401\): the token is not valid/);
    const noApi = memoryIo(examples);
    const saved = { ...process.env };
    delete process.env.PORTICO_API;
    delete process.env.PORTICO_TOKEN;
    try {
      expect(await run(['publish', 'public-endpoint'], noApi)).toBe(1);
    } finally {
      process.env = saved;
    }
    expect(noApi.stderr).toMatch(/give the platform address with --api URL \(or PORTICO_API\)/);
    const unreachable = memoryIo(examples);
    expect(
      await run(['publish', 'public-endpoint', '--api', 'http://127.0.0.1:9', '--token', token], unreachable),
    ).toBe(1);
    expect(unreachable.stderr).toMatch(/could not reach http:\/\/127\.0\.0\.1:9/);
  });
});
