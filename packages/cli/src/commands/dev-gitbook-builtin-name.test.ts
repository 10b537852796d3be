/**
 * `portico dev` with an integration named like a built-in one: a webhook integration written for
 * GitBook's runtime, named `webhook` as theirs is. In the platform `portico dev` embeds, the name
 * is the developer's: the built-in is left out there, the integration is published, installed and
 * run in workerd under its own name, and answers its own public endpoint. (Run by the real binary,
 * in a directory outside the repository.)
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { devInDirectory } from '../test-support/dev-process.js';

const MANIFEST = `name: webhook
title: Webhook
description: Sends the events of its spaces to a URL, for portico dev
organization: acme
visibility: private
script: ./src/index.ts
scopes: [space:content:read]
`;

const SOURCE = `export default {
  async fetch(request: Request): Promise<Response> {
    if (request.method === 'GET') return new Response('no such route', { status: 500 });
    const form = await request.formData();
    const event = JSON.parse(form.get('event') as string);
    const environment = JSON.parse(form.get('environment') as string);
    if (event.type !== 'fetch') return Response.json({ error: 'not handled' }, { status: 406 });
    return Response.json({ name: environment.integration.name, mine: true });
  },
};
`;

const { dev, server } = devInDirectory('webhook', async (dir) => {
  await mkdir(join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'gitbook-manifest.yaml'), MANIFEST);
  await writeFile(join(dir, 'src/index.ts'), SOURCE);
});

describe('portico dev with an integration named like a built-in', () => {
  it('publishes, installs and runs it under its own name', async () => {
    expect(dev.stdout()).toMatch(/webhook version \d+ is installed/);
    expect(dev.output()).not.toMatch(/belongs to another organization/);
    const integration = await fetch(`${server().api}/v1/integrations/webhook`, {
      headers: { authorization: `Bearer ${server().adminToken()}` },
    });
    expect(integration.status).toBe(200);
    expect(await integration.json()).toMatchObject({ name: 'webhook', gitbook: { target: 'all' } });
    const organization = server().installations.organization;
    const answer = await fetch(`${server().api}/v1/installations/${organization}/public/hello`);
    expect(answer.status, await answer.clone().text()).toBe(200);
    expect(await answer.json()).toEqual({ name: 'webhook', mine: true });
    const dispatches = await fetch(`${server().api}/v1/installations/${organization}/dispatches`, {
      headers: { authorization: `Bearer ${server().adminToken()}` },
    });
    expect((await dispatches.json())[0]).toMatchObject({ type: 'fetch', host: 'workerd', status: 200 });
  }, 60_000);
});
