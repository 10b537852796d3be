/** The webhook integration's configuration component, rendered and used through the platform. */
import { describe, expect, it } from 'vitest';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';

type Tree = {
  type: string;
  children?: Tree[] | string;
  label?: string;
  content?: string;
  state?: string;
  initialValue?: unknown;
};
const flatten = (tree: Tree): Tree[] => [tree, ...(Array.isArray(tree.children) ? tree.children.flatMap(flatten) : [])];

describe('the webhook configuration component', () => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(
    backends[0] as (typeof backends)[number],
    {
      tuning: { endpointDisableAfterMs: 1000 },
    },
    [receiver],
  );

  const render = async (installation: string, input: Record<string, unknown> = {}) => {
    const answer = await world.ada(
      'POST',
      `/v1/installations/${installation}/components/webhook-configuration/render`,
      input,
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as { element: Tree; state: Record<string, unknown> };
  };

  it('offers the events valid where it is installed', async () => {
    const space = flatten((await render(world.space)).element);
    expect(space.filter((n) => n.type === 'switch').map((n) => n.state)).toEqual(['space_content_updated']);
    const site = flatten((await render(world.site)).element);
    expect(site.filter((n) => n.type === 'switch').map((n) => n.state)).toEqual(['site_view', 'page_feedback']);
    const org = flatten((await render(world.orgInstallation)).element);
    expect(org.some((n) => n.content?.includes('Install Webhooks into a space or a site'))).toBe(true);
  });

  it('saves the URL and events, reveals and rotates the secret, sends a test event, lists deliveries', async () => {
    const url = receiver.script('/component', [200]);
    const saved = await render(world.space, {
      state: { url, space_content_updated: true },
      action: { action: 'save' },
    });
    expect(saved.state.message).toBe('Saved.');
    const installation = (await world.ada('GET', `/v1/installations/${world.space}`)).body;
    expect(installation).toMatchObject({ status: 'active', configuration: { url, space_content_updated: true } });

    const hidden = flatten((await render(world.space)).element);
    expect(hidden.find((n) => n.content?.startsWith('**Signing secret:**'))?.content).toBe(
      '**Signing secret:** hidden',
    );
    const revealed = await render(world.space, { state: saved.state, action: { action: 'reveal' } });
    const secret = (await world.ada('GET', `/v1/installations/${world.space}/signing-secret`)).body.secret;
    expect(flatten(revealed.element).find((n) => n.content?.startsWith('**Signing secret:**'))?.content).toBe(
      `**Signing secret:** \`${secret}\``,
    );

    const rotated = await render(world.space, { state: revealed.state, action: { action: 'rotate' } });
    expect(rotated.state.message).toMatch(/previous one also signs for 24 hours/);
    expect((await world.ada('GET', `/v1/installations/${world.space}/signing-secret`)).body.secret).not.toBe(secret);

    const tested = await render(world.space, { state: rotated.state, action: { action: 'test' } });
    expect(tested.state.message).toMatch(/^Test event test_[\w-]+ is on its way\.$/);
    const [request] = await until('the test event', () =>
      receiver.at('/component').length ? receiver.at('/component') : undefined,
    );
    expect(JSON.parse(request?.body ?? '{}')).toMatchObject({ type: 'webhook_test', installationId: world.space });

    const listed = await until('the delivery in the list', async () => {
      const tree = flatten((await render(world.space)).element);
      const list = tree.find((n) => n.content?.startsWith('**Last deliveries:**'))?.content ?? '';
      return list.includes('delivered') ? list : undefined;
    });
    expect(listed).toMatch(/- delivered · webhook_test · `test_[\w-]+` · 1 attempt\(s\), last answer 200/);
  }, 30_000);

  it('says when the platform disabled the URL, and enables it again', async () => {
    const url = receiver.script('/failing', [500]);
    await render(world.site, { state: { url, site_view: true }, action: { action: 'save' } });
    await render(world.site, { action: { action: 'test' } });
    const warned = await until(
      'the disabled warning',
      async () => {
        const tree = flatten((await render(world.site)).element);
        return tree.some((n) => n.content?.startsWith(`**Deliveries to ${url} are disabled:**`)) ? tree : undefined;
      },
      10_000,
    );
    const button = warned.find((n) => n.label === 'Enable deliveries') as Tree & { onPress: Record<string, unknown> };
    expect(button.onPress).toMatchObject({ action: 'enable', endpoint: expect.stringMatching(/^ep_/) });
    const enabled = await render(world.site, { action: button.onPress });
    expect(enabled.state.message).toMatch(/^Deliveries go to the URL again/);
    expect(flatten(enabled.element).some((n) => n.label === 'Enable deliveries')).toBe(false);
  }, 30_000);
});
