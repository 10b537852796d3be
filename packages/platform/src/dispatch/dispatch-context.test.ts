/**
 * The dispatch context on SQLite and PostgreSQL, read in one statement: with the installation's
 * delivery endpoints (by URL) and its valid signing secrets, newest first, so a delivery the
 * dispatch asks for reads nothing more (it takes the endpoint as the dispatch read it); and a
 * dispatch's delivery is signed with them.
 */
import { describe, expect, it } from 'vitest';
import { requestDelivery } from '../delivery/deliveries.js';
import { endpointFor } from '../delivery/endpoints.js';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';
import { loadDispatchContext } from './dispatch-context.js';

describe.each(backends)('the dispatch context on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);

  it('holds the endpoints by URL and the valid signing secrets, newest first, read with the installation', async () => {
    const { ctx } = world.platform;
    const none = await loadDispatchContext(ctx.db, ctx.dialect, world.space, ctx.now());
    expect(none?.installation.id).toBe(world.space);

    const url = receiver.script('/context', [200, 200]);
    await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { url, space_content_updated: true });
    const send = (eventId: string) =>
      world.admin('POST', '/v1/events', { type: 'space_content_updated', spaceId: 'docs', revisionId: 'r', eventId });
    await send('evt_context_1');
    await until('the first delivery', () => (receiver.at('/context').length === 1 ? true : undefined));
    // A rotation keeps the old secret valid for a while: both are valid, the new one first.
    const rotated = await world.ada('POST', `/v1/installations/${world.space}/signing-secret/rotate`);
    expect(rotated.status).toBe(200);

    const context = await loadDispatchContext(ctx.db, ctx.dialect, world.space, ctx.now());
    const endpoints = (await world.ada('GET', `/v1/installations/${world.space}/endpoints`)).body as {
      id: string;
      url: string;
    }[];
    const endpoint = endpoints.find((e) => e.url === url);
    expect(context?.deliveryTargets.endpoints.get(url)).toEqual({
      id: endpoint?.id,
      destination: receiver.url,
      disabled_at: null,
      disabled_reason: null,
    });
    const sealed = await ctx.db
      .selectFrom('signing_secrets')
      .select('secret')
      .where('installation_id', '=', world.space)
      .orderBy('id', 'desc')
      .execute();
    expect(sealed).toHaveLength(2);
    expect(context?.deliveryTargets.sealedSecrets).toEqual(sealed.map((row) => row.secret));
    // Once the old secret has expired, only the new one is valid.
    const later = await loadDispatchContext(ctx.db, ctx.dialect, world.space, ctx.now() + 30 * 24 * 3600 * 1000);
    expect(later?.deliveryTargets.sealedSecrets).toEqual([sealed[0]?.secret]);

    // The next event's delivery, asked for with what its dispatch read, carries both signatures.
    await send('evt_context_2');
    const [, second] = await until('the second delivery', () =>
      receiver.at('/context').length === 2 ? receiver.at('/context') : undefined,
    );
    expect(String(second?.headers['webhook-signature']).split(' ')).toHaveLength(2);
  });

  it('asks for a delivery with what the dispatch read, without reading the endpoint again', async () => {
    const { ctx } = world.platform;
    const url = receiver.script('/known', [200]);
    const context = await loadDispatchContext(ctx.db, ctx.dialect, world.space, ctx.now());
    const installation = context?.installation;
    if (installation === undefined) throw new Error('no installation');
    // What the dispatch read says the endpoint is disabled; the table says it is not.
    const endpoint = await endpointFor(ctx, world.space, url);
    expect(endpoint.disabled_at).toBeNull();
    const known = {
      endpoints: new Map([[url, { ...endpoint, disabled_at: 1, disabled_reason: 'gone' }]]),
      sealedSecrets: [],
    };
    const principal = {
      kind: 'installation' as const,
      installationId: world.space,
      scopes: ['webhooks:write'],
      installation,
    };
    const asked = await requestDelivery(
      ctx,
      principal,
      world.space,
      { url, eventId: 'evt_known', type: 'test', payload: { eventId: 'evt_known' } },
      known,
    );
    expect(asked.status).toBe('failed');
    const row = await ctx.db.selectFrom('deliveries').selectAll().where('id', '=', asked.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ endpoint_id: endpoint.id, last_error: 'gone' });
    expect(receiver.at('/known')).toEqual([]);
  });
});
