/**
 * Completions on the real server, on SQLite and PostgreSQL, with an integration in workerd: the
 * platform POSTs { property, configuration, query } to the property's completion_url through the
 * integration's public fetch, marked with X-Portico-Completion (which nobody outside can send),
 * and answers the options; every bad question and every bad answer gets a clear error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../test-support/backends.js';
import { startWorld, type World } from '../test-support/world.js';

const SCRIPT = `export default { async fetch(request) {
  if (request.method === 'GET') return Response.json({ runtime: 'portico', versions: ['v1'], fetch: true, events: [], components: [] });
  const form = await request.formData();
  const event = JSON.parse(form.get('event'));
  if (event.type !== 'fetch') return Response.json({ error: { code: 'event_not_handled', message: 'no' } }, { status: 404 });
  const url = new URL(event.request.url);
  const headers = new Map(event.request.headers.map(([k, v]) => [k.toLowerCase(), v]));
  const part = form.get('fetch-body');
  const body = part ? JSON.parse(await part.text()) : null;
  if (!headers.has('x-portico-completion')) return new Response('completions come from the platform', { status: 403 });
  if (url.pathname.endsWith('/projects')) return Response.json({ options: [
    { value: 'p1', label: 'Project one (' + body.configuration.region + ')' },
    { value: 2 },
    'typed:' + body.query,
    { value: 'echo', label: JSON.stringify({ property: body.property, kind: url.searchParams.get('kind'), method: event.request.method, type: headers.get('content-type'), header: headers.get('x-portico-completion'), name: body.configuration.name ?? null }) },
  ] });
  if (url.pathname.endsWith('/strings')) return Response.json(Array.from({ length: 1005 }, (_, i) => 's' + i));
  if (url.pathname.endsWith('/broken')) return Response.json({ options: [{ label: 'no value' }] });
  if (url.pathname.endsWith('/fail')) return new Response('upstream down', { status: 500 });
  return new Response('not found', { status: 404 });
} };`;

const MANIFEST = `name: completer
title: Completer
description: Fills dropdowns.
organization: acme
visibility: private
scopes: []
configurations:
  account:
    properties:
      region:
        type: string
        enum: [eu, us]
        default: eu
      name:
        type: string
      project:
        type: string
        completion_url: /projects?kind=main
      tags:
        type: string
        completion_url: /strings
      broken:
        type: string
        completion_url: /broken
      failing:
        type: string
        completion_url: /fail
      flag:
        type: boolean
`;

describe.each(backends)('completions on $name', (backend) => {
  let world: World;
  let ada: World['admin'];
  let id: string;
  beforeAll(async () => {
    world = await startWorld(backend);
    ada = world.as(world.tokens.ada);
    expect((await ada('POST', '/v1/integrations', { manifest: MANIFEST, script: SCRIPT })).status).toBe(201);
    id = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'completer' })).body.id;
  }, 60_000);
  afterAll(() => world?.close());

  const ask = (property: string, body?: unknown, as = ada) =>
    as('POST', `/v1/installations/${id}/completions/${property}`, body);

  it('answers the integration’s options, asked with the form’s values and what was typed', async () => {
    const { status, body } = await ask('project', { configuration: { name: 'unsaved' }, query: 'pro' });
    expect(status).toBe(200);
    expect(body.truncated).toBe(false);
    expect(body.options.slice(0, 3)).toEqual([
      { value: 'p1', label: 'Project one (eu)' },
      { value: '2', label: '2' },
      { value: 'typed:pro', label: 'typed:pro' },
    ]);
    expect(JSON.parse(body.options[3].label)).toEqual({
      property: 'project',
      kind: 'main',
      method: 'POST',
      type: 'application/json',
      header: 'project',
      name: 'unsaved',
    });
    // The form's values were sent, not stored.
    expect((await ada('GET', `/v1/installations/${id}`)).body.configuration).toEqual({ region: 'eu' });
    // A body is optional; a bearer token of any member works.
    const bare = await ask('project', undefined, world.as(world.tokens.bob));
    expect(bare.body.options[2]).toEqual({ value: 'typed:', label: 'typed:' });
  });

  it('keeps at most 1,000 options and says so', async () => {
    const { body } = await ask('tags', {});
    expect(body.options).toHaveLength(1000);
    expect(body.options[0]).toEqual({ value: 's0', label: 's0' });
    expect(body.truncated).toBe(true);
  });

  it('names what is wrong with a bad answer of the integration', async () => {
    expect((await ask('broken', {})).body.error).toEqual({
      code: 'invalid_completion',
      message:
        'the integration\'s answer at its completion_url /broken (for `broken`) options[0] must be a string or { "value": string, "label"?: string }',
    });
    const failing = await ask('failing', {});
    expect(failing.status).toBe(502);
    expect(failing.body.error).toEqual({
      code: 'completion_failed',
      message: 'the integration answered 500 at its completion_url /fail (for `failing`): upstream down',
    });
  });

  it('refuses a property without completions, an unknown one, undeclared values, strangers; changes nothing', async () => {
    expect((await ask('projct', {})).body.error).toEqual({
      code: 'unknown_property',
      message: expect.stringMatching(
        /`projct` is not a property .*did you mean "project"\?.*the ones with completions are `project`, `tags`, `broken`, `failing`/,
      ),
    });
    expect((await ask('region', {})).body.error).toEqual({
      code: 'no_completion',
      message: '`region` has no completion_url: its options are its enum',
    });
    expect((await ask('flag', {})).body.error.message).toBe(
      '`flag` has no completion_url: it is a boolean property without options',
    );
    const undeclared = await ask('project', { configuration: { colour: 'red' } });
    expect(undeclared.status).toBe(400);
    expect(undeclared.body.error.message).toMatch(/configuration\.`colour` is not a property/);
    expect((await ask('project', { query: 1 })).body.error.code).toBe('invalid_request');
    expect((await ask('project', { extra: true })).body.error.message).toMatch(/unknown field `extra`/);
    expect((await ask('project', {}, world.as(world.tokens.carol))).status).toBe(403);
    expect((await ask('project', {}, world.anonymous)).status).toBe(401);
    await ada('POST', `/v1/installations/${id}/pause`);
    expect((await ask('project', {})).body.error.code).toBe('installation_paused');
    await ada('POST', `/v1/installations/${id}/resume`);
    expect((await ada('GET', `/v1/installations/${id}`)).body.configuration).toEqual({ region: 'eu' });
  });

  it('never passes X-Portico-Completion on from outside: the integration can tell its callers apart', async () => {
    const forged = await fetch(`${world.platform.url}/v1/installations/${id}/public/projects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-portico-completion': 'project' },
      body: JSON.stringify({ property: 'project', configuration: { region: 'eu' }, query: '' }),
    });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toBe('completions come from the platform');
  });
});
