/**
 * A webhook installation's one editor per thing, through the API: the integration's component only
 * reads (what is sent where, fresh at each render); the signing secret shows its previous one after
 * a rotation; Send test event is a signed delivery through the engine, marked as a test.
 */
import { DELIVERY_POLICIES } from '@portico/webhooks';
import { describe, expect, it } from 'vitest';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';

type Tree = { type: string; children?: Tree[] | string; label?: string };
const flatten = (tree: Tree): Tree[] => [tree, ...(Array.isArray(tree.children) ? tree.children.flatMap(flatten) : [])];
const texts = (tree: Tree) =>
  flatten(tree)
    .filter((n) => n.type === 'text')
    .map((n) => n.children);

describe('a webhook installation’s component, secret and test event', () => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backends[0] as (typeof backends)[number], {}, [receiver]);

  const render = async (installation: string) => {
    const answer = await world.ada(
      'POST',
      `/v1/installations/${installation}/components/webhook-configuration/render`,
      {},
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.element as Tree;
  };

  it('says, read only and fresh after each save, what is sent where and how it is retried', async () => {
    const standard = `Retries: ${DELIVERY_POLICIES.standard.summary}`;
    expect(texts(await render(world.space))).toEqual([
      'Nothing is sent yet: set the Webhook URL in the form above.',
      standard,
    ]);
    const url = receiver.script('/component', [200]);
    await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { url });
    expect(texts(await render(world.space))).toEqual([`Nothing is sent to ${url}: no event is selected.`, standard]);
    await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { space_content_updated: true });
    const element = await render(world.space);
    expect(texts(element)).toEqual([`Sends content updates to ${url}.`, standard]);
    await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { delivery_policy: 'extended' });
    expect(texts(await render(world.space))[1]).toBe(`Retries: ${DELIVERY_POLICIES.extended.summary}`);
    await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { delivery_policy: 'standard' });
    // Nothing to edit or press: the form and the platform's panels do that.
    expect(flatten(element).filter((n) => ['button', 'textinput', 'switch'].includes(n.type))).toEqual([]);
    expect(texts(await render(world.orgInstallation))[0]).toMatch(/^Each space or site it is installed in/);
  });

  it('answers the current secret and, after a rotation, the previous one with when it stops signing', async () => {
    const before = (await world.ada('GET', `/v1/installations/${world.space}/signing-secret`)).body;
    expect(before).toEqual({ secret: expect.stringMatching(/^whsec_/), previous: [] });
    const rotated = await world.ada('POST', `/v1/installations/${world.space}/signing-secret/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(before.secret);
    expect(rotated.body.previous).toEqual([{ secret: before.secret, expiresAt: expect.any(String) }]);
    const hours = (Date.parse(rotated.body.previous[0].expiresAt) - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    expect((await world.ada('GET', `/v1/installations/${world.space}/signing-secret`)).body).toEqual(rotated.body);
  });

  it('sends a test event: signed, through the engine, marked as a test, in the delivery list', async () => {
    const sent = await world.ada('POST', `/v1/installations/${world.space}/test-delivery`);
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ id: expect.stringMatching(/^dlv_/), eventId: expect.stringMatching(/^test_/) });
    const [request] = await until('the test event', () =>
      receiver.at('/component').length ? receiver.at('/component') : undefined,
    );
    expect(JSON.parse(request?.body ?? '{}')).toEqual({
      eventId: sent.body.eventId,
      type: 'webhook_test',
      installationId: world.space,
      test: true,
    });
    expect(request?.headers['x-platform-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    const listed = await until('the delivered test', async () => {
      const [first] = (await world.ada('GET', `/v1/installations/${world.space}/deliveries`)).body;
      return first?.status === 'delivered' ? first : undefined;
    });
    expect(listed).toMatchObject({ id: sent.body.id, type: 'webhook_test' });
  }, 30_000);

  it('refuses a test event while there is no URL, saying what to do', async () => {
    const refused = await world.ada('POST', `/v1/installations/${world.site}/test-delivery`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual({
      code: 'no_url',
      message: 'this installation has no URL to send a test event to: save a webhook URL first',
    });
  });

  it('lists only the latest delivery of each event when asked: a redelivered failure no longer counts as failed', async () => {
    const url = receiver.script('/flaky', [400]);
    await world.ada('PATCH', `/v1/installations/${world.site}/configuration`, { url, site_view: true });
    const sent = (await world.ada('POST', `/v1/installations/${world.site}/test-delivery`)).body;
    const list = async (query: string) =>
      ((await world.ada('GET', `/v1/installations/${world.site}/deliveries?${query}`)).body as { id: string }[]).map(
        (d) => d.id,
      );
    await until('the failure', async () => ((await list('status=failed')).includes(sent.id) ? true : undefined));
    receiver.script('/flaky', [200]);
    const again = (await world.ada('POST', `/v1/deliveries/${sent.id}/redeliver`)).body;
    await until('the redelivery', async () => ((await list('status=delivered')).includes(again.id) ? true : undefined));
    expect(await list('status=failed')).toEqual([sent.id]);
    expect(await list('status=failed&latest=true')).toEqual([]);
    expect(await list(`eventId=${sent.eventId}&latest=true`)).toEqual([again.id]);
    expect(await list(`eventId=${sent.eventId}`)).toEqual([again.id, sent.id]);
  }, 30_000);
});
