/**
 * The GitBook dialect follows granted scopes (DESIGN.md "Granted scopes", decision 054), on SQLite
 * and PostgreSQL: a version asking for more still says, in its environment's `integration.scopes`,
 * what the organization granted; once an admin accepts, the setup event that follows says the
 * wider grant. The integration runs in this process and records what it is sent.
 */
import type { Envelope, Integration } from '@portico/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../test-support/backends.js';
import { until } from '../test-support/webhook-world.js';
import { startWorld, type World } from '../test-support/world.js';

/** What a GitBook-dialect envelope carries that this test reads. */
type Received = {
  event: { type: string };
  environment: {
    installation: { configuration: Record<string, unknown> };
    integration: { version: string; scopes: string[] };
  };
};

const received: Received[] = [];
const recorder: Integration = {
  descriptor: {
    runtime: 'portico',
    versions: ['v1'],
    fetch: true,
    events: ['installation_setup', 'space_installation_setup'],
    components: [],
  },
  async dispatch(envelope: Envelope) {
    received.push(JSON.parse(JSON.stringify(envelope)) as Received);
    return Response.json({});
  },
  fetch: async () => new Response('use dispatch', { status: 500 }),
};

const manifest = (scopes: string) => `name: gb-grant
title: gb-grant
description: Says what it was granted
organization: acme
visibility: private
scopes: [${scopes}]
configurations:
  account:
    properties:
      team:
        type: string
`;

describe.each(backends)('granted scopes in the GitBook dialect on $name', (backend) => {
  let world: World;
  beforeAll(async () => {
    received.length = 0;
    world = await startWorld(backend, {}, { inProcess: new Map([['gb-grant', recorder]]) });
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });

  it('says the scopes the organization granted, not what a newer version asks for, until an admin accepts', async () => {
    const ada = world.as(world.tokens.ada);
    const publish = async (scopes: string) => {
      const published = await ada('POST', '/v1/integrations', {
        manifest: manifest(scopes),
        script: '// in-process',
        gitbook: { target: 'all', configurationComponents: {}, blocks: {} },
      });
      expect(published.status, JSON.stringify(published.body)).toBe(201);
    };
    await publish('space:content:read');
    const org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'gb-grant' })).body.id as string;
    await publish('space:content:read, space:git:sync');
    await ada('PATCH', `/v1/installations/${org}/configuration`, { team: 'granted' });
    const before = await until('the setup event of version 2', () => {
      const found = received.find(
        (r) => r.event.type === 'installation_setup' && r.environment.installation.configuration.team === 'granted',
      );
      return found?.environment;
    });
    expect(before.integration).toMatchObject({ version: '2', scopes: ['space:content:read'] });

    expect((await ada('POST', `/v1/installations/${org}/scopes/accept`)).status).toBe(200);
    // Accepting changes the grant: a setup event with the wider one follows.
    const after = await until('the setup event of the accepted grant', () => {
      const found = received.find(
        (r) => r.event.type === 'installation_setup' && r.environment.integration.scopes.length === 2,
      );
      return found?.environment;
    });
    expect(after.integration.scopes).toEqual(['space:content:read', 'space:git:sync']);
  });
});
