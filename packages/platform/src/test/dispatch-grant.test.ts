/**
 * The grant of an event dispatch to an integration in this process (decision 028): asking for a
 * delivery through the `PORTICO_API` binding with the dispatch's token (a direct call of the
 * delivery service, http/service-binding.ts) acts as the installation the dispatch read, without
 * a token lookup, for as long as the dispatch runs; a call with another token is looked up as any
 * request; and outside the binding the token is checked as always.
 */
import { createIntegration, type Integration } from '@portico/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlatform, startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';

const manifest = `name: caller
title: Caller
description: Calls the API while it handles an event
organization: acme
visibility: private
scopes: [space:content:read]
`;

/** What one dispatch saw: its token, and the answers to its calls once let go. */
interface Seen {
  token: string;
  installationId: string;
  answers: Promise<{ withDispatchToken: number; withOtherToken: number }>;
}

describe.each(backends)('dispatch grants on $name', (backend) => {
  let platform: RunningPlatform;
  let cleanup: () => Promise<void>;
  let admin: ReturnType<typeof client>;
  let letGo: () => void = () => {};
  const started: Seen[] = [];

  beforeAll(async () => {
    const gate = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let bindings: { PORTICO_API: { fetch(request: Request): Promise<Response> } } | undefined;
    const inner = createIntegration({
      events: {
        async space_content_updated(_event, context) {
          const { environment } = context;
          const path = `/v1/installations/${environment.id}/deliveries`;
          const ask = (eventId: string) =>
            JSON.stringify({ url: 'http://127.0.0.1:9/hook', eventId, type: 'test', payload: { eventId } });
          const answers = (async () => {
            await gate;
            const own = await context.api.request(path, { method: 'POST', body: ask('evt_own') });
            const other = await bindings?.PORTICO_API.fetch(
              new Request(`${environment.apiEndpoint}${path}`, {
                method: 'POST',
                headers: { authorization: 'Bearer pti_not_a_token_of_anyone', 'content-type': 'application/json' },
                body: ask('evt_other'),
              }),
            );
            return { withDispatchToken: own.status, withOtherToken: other?.status ?? 0 };
          })();
          started.push({ token: environment.apiTokens.installation, installationId: environment.id, answers });
          await answers;
        },
      },
    });
    // The same integration, keeping the `env` each dispatch is given (to call the binding by hand).
    const caller: Integration = {
      ...inner,
      dispatch: (envelope, env, executionContext) => {
        bindings = env as typeof bindings;
        return inner.dispatch(envelope, env, executionContext);
      },
    };
    const fresh = await backend.fresh();
    cleanup = fresh.cleanup;
    platform = await startPlatform(fresh.config, { inProcess: new Map([['caller', caller]]) });
    admin = client(platform.url, platform.adminToken);
    await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    await admin('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' });
    expect((await admin('POST', '/v1/integrations', { manifest, script: '// in-process' })).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    letGo();
    await platform?.close();
    await cleanup?.();
  });

  it('asks for deliveries with the dispatch’s token for the whole dispatch, and looks any other token up', async () => {
    const org = await admin('POST', '/v1/orgs/acme/installations', { integration: 'caller' });
    expect(org.status, JSON.stringify(org.body)).toBe(201);
    const space = await admin('POST', `/v1/installations/${org.body.id}/spaces/docs`);
    expect(space.status, JSON.stringify(space.body)).toBe(201);
    const event = { type: 'space_content_updated', eventId: 'evt_grant', spaceId: 'docs', revisionId: 'r1' };
    expect((await admin('POST', '/v1/events', event)).status).toBe(202);

    const deadline = Date.now() + 20_000;
    while (started.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const [seen] = started;
    if (seen === undefined) throw new Error('the event was not dispatched within 20 s');
    expect(seen.installationId).toBe(space.body.id);

    // While the dispatch runs, its installation is removed: its token stops working over HTTP…
    expect((await admin('DELETE', `/v1/installations/${seen.installationId}`)).status).toBe(204);
    const outside = await client(platform.url, seen.token)(
      'GET',
      `/v1/installations/${seen.installationId}/dispatches`,
    );
    expect(outside.status).toBe(401);

    // …but the dispatch acts as what it read when it began, through its binding with its token,
    // and nothing else does: another token through the same binding is looked up, and refused.
    letGo();
    expect(await seen.answers).toEqual({ withDispatchToken: 202, withOtherToken: 401 });
  });
});
