/**
 * A GitBook-dialect integration end to end, on SQLite and PostgreSQL: built from its source
 * directory (`gitbook-manifest.yaml`, TypeScript, a `.raw.js` import, `MODE`) with the real CLI
 * (`portico publish`), installed with `portico install`, run in workerd, and seen handling its
 * space installation's setup event and an event sent with `portico emit`: each handler writes its
 * space installation's configuration through `apiEndpoint` (the `/compat/gitbook` routes) with its
 * token, as that runtime's API client does. The integration is written for this test, in the shapes
 * of that runtime's wire format (`GET /v1` a 500, the envelope's parts read as text, 406 for what it
 * does not handle); it does not use `@gitbook/runtime`, which Portico does not depend on.
 */
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../manifest/src/test-support/temp-dir.js';
import { backends } from '../../../platform/src/test-support/backends.js';
import { portico, serverWorld, until } from '../test-support/server-world.js';

const MANIFEST = `name: gb-counter
title: Counter
description: Counts the content updates of the spaces it is installed in
organization: acme
visibility: private
script: ./src/index.ts
target: space
scopes: [space:content:read]
configurations:
  space:
    properties:
      label:
        type: string
`;

const SOURCE = `import banner from './banner.raw.js';

interface Environment {
  apiEndpoint: string;
  apiTokens: { installation: string };
  integration: { name: string };
  installation: { id: string };
  spaceInstallation: { space: string; configuration: Record<string, unknown> };
}

async function update(environment: Environment, configuration: Record<string, unknown>): Promise<Response> {
  const { integration, installation, spaceInstallation } = environment;
  const path = \`/v1/integrations/\${integration.name}/installations/\${installation.id}/spaces/\${spaceInstallation.space}\`;
  const response = await fetch(environment.apiEndpoint + path, {
    method: 'PATCH',
    headers: { authorization: \`Bearer \${environment.apiTokens.installation}\`, 'content-type': 'application/json' },
    body: JSON.stringify({ configuration }),
  });
  if (!response.ok) return Response.json({ error: await response.text() }, { status: 500 });
  return Response.json({});
}

export default {
  async fetch(request: Request): Promise<Response> {
    if (request.method === 'GET') return new Response('no such route', { status: 500 });
    const form = await request.formData();
    const event = JSON.parse(form.get('event') as string);
    const environment = JSON.parse(form.get('environment') as string) as Environment;
    switch (event.type) {
      case 'space_installation_setup':
        if (environment.spaceInstallation.configuration.mode !== undefined) return Response.json({});
        return update(environment, { mode: MODE, banner: banner.trim() });
      case 'space_content_updated':
        return update(environment, { lastRevision: event.revisionId });
      default:
        return Response.json({ error: 'not handled' }, { status: 406 });
    }
  },
};
`;

describe.each(backends)('a GitBook-dialect integration published and run on $name', (backend) => {
  const world = serverWorld({ backend, allowPrivateNetwork: false });
  const api = (method: string, path: string, body?: unknown) => world.api(method, path, body);

  it('builds it from its source, installs it, and sees its events handled', async () => {
    const dir = await tempDir({
      'gitbook-manifest.yaml': MANIFEST,
      'src/index.ts': SOURCE,
      'src/banner.raw.js': 'console.log("counted");\n',
    });
    const as = ['--api', world.url, '--token', world.adaToken];
    const published = await portico(['publish', dir, ...as]);
    expect(published.stderr).toBe('');
    expect(published.code).toBe(0);
    expect(published.stdout).toMatch(/^Published gb-counter version 1 /);
    const integration = await api('GET', '/v1/integrations/gb-counter');
    expect(integration.gitbook).toMatchObject({ target: 'space' });

    const installed = await portico(['install', 'gb-counter', '--org', 'acme', '--space', 'docs', ...as]);
    expect(installed.code, installed.stderr).toBe(0);
    const space = installed.stdout
      .trim()
      .split('\n')
      .find((line) => / space docs /.test(line))
      ?.split(' ')[0] as string;
    expect(space).toMatch(/^inst_\w+$/);

    // Its setup handler ran in workerd, built with MODE and the .raw.js file as text.
    const setUp = await until(
      'the setup handler to write the configuration',
      async () => {
        const { configuration } = await api('GET', `/v1/installations/${space}`);
        return configuration.mode !== undefined ? configuration : undefined;
      },
      30_000,
    );
    expect(setUp).toEqual({ mode: 'production', banner: 'console.log("counted");' });

    const emitted = await portico([
      'emit',
      'space_content_updated',
      '--space',
      'docs',
      '--field',
      'revisionId=rev_42',
      '--api',
      world.url,
      '--token',
      world.adminToken,
    ]);
    expect(emitted.code, emitted.stderr).toBe(0);
    const updated = await until(
      'the event handler to write the configuration',
      async () => {
        const { configuration } = await api('GET', `/v1/installations/${space}`);
        return configuration.lastRevision !== undefined ? configuration : undefined;
      },
      30_000,
    );
    expect(updated).toEqual({ mode: 'production', banner: 'console.log("counted");', lastRevision: 'rev_42' });
    // A dispatch is recorded once the handler has answered, after its write: wait for both.
    const dispatches = await until(
      'both dispatches to be recorded',
      async () => {
        const recorded = (await api('GET', `/v1/installations/${space}/dispatches`)) as { type: string }[];
        return recorded.some((dispatch) => dispatch.type === 'space_content_updated') ? recorded : undefined;
      },
      30_000,
    );
    expect(dispatches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'space_installation_setup', host: 'workerd', status: 200 }),
        expect.objectContaining({ type: 'space_content_updated', host: 'workerd', status: 200 }),
      ]),
    );
  }, 90_000);
});
