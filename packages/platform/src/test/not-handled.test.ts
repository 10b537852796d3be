/**
 * How a dispatch ends when the integration answers that it does not handle the event, on the real
 * server, on SQLite and PostgreSQL (DESIGN.md, "Envelope wire format"): 404 `event_not_handled`
 * (Portico's SDK) and 406 (other runtimes, such as GitBook's) both end `not_handled`, never as a
 * failure; any other 4xx still ends `failed`.
 */
import type { Integration, IntegrationDescriptor } from '@portico/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlatform, startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { until } from '../test-support/webhook-world.js';

/** An integration that claims `space_content_updated` and answers every event with `answer()`. */
function answering(answer: () => Response): Integration {
  const descriptor: IntegrationDescriptor = {
    runtime: 'portico',
    versions: ['v1'],
    fetch: false,
    events: ['space_content_updated'],
    components: [],
  };
  return { descriptor, fetch: async () => answer(), dispatch: async () => answer() };
}

const INTEGRATIONS = {
  'says-404': () => Response.json({ error: { code: 'event_not_handled', message: 'no handler' } }, { status: 404 }),
  'says-406': () => new Response(JSON.stringify({ error: 'Event is not handled' }), { status: 406 }),
  'says-404-plain': () => new Response('no such page', { status: 404 }),
  'says-400': () => Response.json({ error: { code: 'bad', message: 'refused' } }, { status: 400 }),
};
type Name = keyof typeof INTEGRATIONS;

const manifest = (name: string) => `name: ${name}
title: ${name}
description: Answers every event the same way
organization: acme
visibility: private
scopes: [space:content:read]
`;

describe.each(backends)('events an integration does not handle, on $name', (backend) => {
  let platform: RunningPlatform;
  let cleanup: () => Promise<void>;
  let admin: ReturnType<typeof client>;
  const spaceInstallations = new Map<string, Name>();

  beforeAll(async () => {
    const fresh = await backend.fresh();
    cleanup = fresh.cleanup;
    platform = await startPlatform(fresh.config, {
      inProcess: new Map(Object.entries(INTEGRATIONS).map(([name, answer]) => [name, answering(answer)])),
    });
    admin = client(platform.url, platform.adminToken);
    await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    await admin('POST', '/v1/orgs/acme/spaces', { id: 's1', title: 's1' });
    const token = (await admin('POST', '/v1/users', { id: 'ada', name: 'Ada' })).body.token;
    await admin('PUT', '/v1/orgs/acme/members/ada', { role: 'admin' });
    const ada = client(platform.url, token);
    for (const name of Object.keys(INTEGRATIONS) as Name[]) {
      const published = await ada('POST', '/v1/integrations', { manifest: manifest(name), script: '// in-process' });
      expect(published.status, JSON.stringify(published.body)).toBe(201);
      const org = await ada('POST', '/v1/orgs/acme/installations', { integration: name });
      const space = await ada('POST', `/v1/installations/${org.body.id}/spaces/s1`);
      expect(space.body.status, JSON.stringify(space.body)).toBe('active');
      spaceInstallations.set(space.body.id, name);
    }
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await cleanup?.();
  });

  it('ends 404 event_not_handled and 406 as not_handled, and other 4xx answers as failed', async () => {
    const sent = await admin('POST', '/v1/events', { type: 'space_content_updated', spaceId: 's1', revisionId: 'r1' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    const outcomes = await until('every dispatch of the event to end', async () => {
      const { body } = await admin('GET', `/v1/events/${sent.body.eventId}`);
      const installations = (body.installations ?? []) as { installationId: string; outcome: string | null }[];
      const ended = installations.filter((i) => i.outcome !== null && !/^(retrying|waiting)/.test(i.outcome));
      return installations.length === spaceInstallations.size && ended.length === installations.length
        ? installations
        : undefined;
    });
    const byName = Object.fromEntries(outcomes.map((i) => [spaceInstallations.get(i.installationId), i.outcome]));
    expect(byName).toEqual({
      'says-404': 'not_handled',
      'says-406': 'not_handled',
      'says-404-plain': 'failed: 404 no such page',
      'says-400': expect.stringMatching(/^failed: 400 .*refused/),
    });
  });
});
