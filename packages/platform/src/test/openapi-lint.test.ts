/**
 * The OpenAPI document as integrators' tools meet it (issue 45): Redocly's CLI, with its recommended
 * rules, lints the document a real server on 127.0.0.1 serves at GET /v1/openapi.json, written to a
 * file as a user would save it. No error may remain, and no warning that is not listed in DECIDED
 * below with its reason (decision 053).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlatform, startPlatform } from '../server.js';
import { backends } from '../test-support/backends.js';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Warnings kept on purpose, each `ruleId` with the reason; an error is never kept. Empty today:
 * every recommended rule passes. A rule added here must say why the document is right as it is.
 */
const DECIDED: Record<string, string> = {};

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer?: string }>;
}

type Operation = { operationId?: string; security?: unknown[]; responses: Record<string, { content?: unknown }> };
interface Document {
  servers: Array<{ url: string }>;
  info: { license?: { name: string } };
  tags: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
}

/** Runs `redocly lint` (recommended rules) on a file; its JSON report, whatever its exit status. */
async function lint(file: string, dir: string): Promise<LintProblem[]> {
  const config = join(dir, 'redocly.yaml');
  await writeFile(config, 'extends:\n  - recommended\n');
  const env = {
    ...process.env,
    // Nothing leaves the machine: no usage report, no look-up of a newer version.
    REDOCLY_TELEMETRY: 'off',
    REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
    NO_UPDATE_NOTIFIER: '1',
  };
  const args = ['--no-install', 'redocly', 'lint', file, '--format=json', `--config=${config}`];
  let stdout: string;
  try {
    ({ stdout } = await run('npx', args, { cwd: REPO_ROOT, env, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 }));
  } catch (error) {
    // Exit status 1 when it found errors: the report is still on stdout.
    const out = (error as { stdout?: string }).stdout;
    if (!out?.trim().startsWith('{')) throw error;
    stdout = out;
  }
  return (JSON.parse(stdout) as { problems: LintProblem[] }).problems;
}

describe.each(backends)('the OpenAPI document on $name', (backend) => {
  let platform: RunningPlatform;
  let cleanup: () => Promise<void>;
  let dir: string;
  let document: Document;
  let file: string;

  beforeAll(async () => {
    const fresh = await backend.fresh();
    cleanup = fresh.cleanup;
    platform = await startPlatform(fresh.config);
    dir = await mkdtemp(join(tmpdir(), 'portico-openapi-'));
    const response = await fetch(`${platform.url}/v1/openapi.json`);
    expect(response.status).toBe(200);
    const text = await response.text();
    document = JSON.parse(text) as Document;
    file = join(dir, 'openapi.json');
    await writeFile(file, text);
  }, 60_000);

  afterAll(async () => {
    await platform?.close();
    await cleanup?.();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("passes Redocly's recommended rules, with no error and no warning but those decided", async () => {
    const problems = await lint(file, dir);
    const unexpected = problems
      .filter((p) => p.severity === 'error' || !(p.ruleId in DECIDED))
      .map((p) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? '?'})`);
    expect(unexpected).toEqual([]);
  }, 120_000);

  it('names every operation with a unique, verb-first operationId', () => {
    const ids: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        expect(operation.operationId, `${method.toUpperCase()} ${path}`).toMatch(/^[a-z]+[A-Z][A-Za-z]*$/);
        ids.push(operation.operationId as string);
      }
    }
    expect(ids.length).toBeGreaterThan(60);
    expect(new Set(ids).size).toBe(ids.length);
    // The names integrators' generated clients are built on: renaming one breaks their code.
    expect(ids).toEqual(
      expect.arrayContaining([
        'createOrganization',
        'createUser',
        'createSignInLink',
        'ingestEvent',
        'redeliverDelivery',
      ]),
    );
  });

  it('states the server it is served from, the licence, public routes and described tags', () => {
    expect(document.servers).toEqual([{ url: platform.url, description: 'This server' }]);
    expect(document.info.license?.name).toBe('Apache-2.0');
    expect(document.paths['/v1/session']?.post?.security).toEqual([]);
    expect(document.paths['/v1/installations/{id}/public/{path}']?.post?.security).toEqual([]);
    expect(document.paths['/v1/orgs']?.post?.security).toEqual([{ bearer: [] }, { session: [] }]);
    for (const tag of document.tags) expect(tag.description, tag.name).toBeTruthy();
  });

  it('describes every error answer with the error schema', () => {
    const bare: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, answer] of Object.entries(operation.responses)) {
          const schema = (answer.content as Record<string, { schema?: { $ref?: string } }> | undefined)?.[
            'application/json'
          ]?.schema;
          if (/^[45]/.test(status) && schema?.$ref !== '#/components/schemas/Error') {
            bare.push(`${method.toUpperCase()} ${path} ${status}`);
          }
        }
      }
    }
    expect(bare).toEqual([]);
  });
});
