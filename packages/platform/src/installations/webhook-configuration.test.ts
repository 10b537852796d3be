/** The webhook integration's configuration through the API: a URL deliveries cannot go to is never stored. */
import { describe, expect, it } from 'vitest';
import { backends } from '../test-support/backends.js';
import { webhookWorldFor } from '../test-support/webhook-world.js';

const backend = backends[0] as (typeof backends)[number];

describe('a webhook installation’s configuration, private networks not allowed', () => {
  const world = webhookWorldFor(backend, { allowPrivateNetwork: false });

  it.each([
    ['not a url', '"not a url" is not a URL'],
    ['ftp://127.0.0.1:3997/hook', 'ftp: is not http or https'],
    ['/hooks', '"/hooks" is not a URL'],
    ['http://hooks.example.com/in', 'webhook URLs must use https'],
    ['https://127.0.0.1/in', '127.0.0.1 is a loopback, private, link-local or reserved address'],
  ])('refuses %s with the field’s error and stores nothing', async (url, reason) => {
    const answer = await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, {
      url,
      space_content_updated: true,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_configuration');
    expect(answer.body.error.errors).toHaveLength(1);
    expect(answer.body.error.errors[0].path).toBe('url');
    expect(answer.body.error.errors[0].message).toContain('`url` must be an absolute https URL');
    expect(answer.body.error.errors[0].message).toContain(reason);
    const stored = (await world.ada('GET', `/v1/installations/${world.space}`)).body;
    expect(stored).toMatchObject({ status: 'pending', configuration: { space_content_updated: false } });
    expect(stored.configuration.url).toBeUndefined();
  });

  it('stores an https URL (trimmed), and warns while no event is selected', async () => {
    const saved = await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, {
      url: '  https://hooks.example.com/in ',
    });
    expect(saved.body).toEqual({
      status: 'active',
      configuration: {
        url: 'https://hooks.example.com/in',
        space_content_updated: false,
        site_view: false,
        page_feedback: false,
        delivery_policy: 'standard',
      },
      errors: [],
      warnings: [
        {
          path: 'space_content_updated',
          message: 'No event is selected: nothing is delivered until you select at least one event',
        },
      ],
    });
    const page = (await world.ada('GET', `/v1/installations/${world.space}?view=page`)).body;
    expect(page.warnings).toHaveLength(1);
    const selected = await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, {
      space_content_updated: true,
    });
    expect(selected.body.warnings).toEqual([]);
    expect((await world.ada('GET', `/v1/installations/${world.space}?view=page`)).body.warnings).toEqual([]);
  });

  it('treats a URL of only spaces as missing', async () => {
    const blank = await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { url: '   ' });
    expect(blank.status).toBe(200);
    expect(blank.body).toMatchObject({ status: 'pending', errors: [{ path: 'url', message: '`url` is required' }] });
    expect(blank.body.configuration.url).toBeUndefined();
  });

  it('offers on its page only the events of the place it is in, and says which URLs it takes', async () => {
    const space = (await world.ada('GET', `/v1/installations/${world.space}?view=page`)).body;
    const offered = ['url', 'space_content_updated', 'headers', 'delivery_policy'];
    expect(space.fields.map((f: { name: string }) => f.name)).toEqual(offered);
    expect(Object.keys(space.configurationSchema.properties)).toEqual(offered);
    expect(space.fields[2]).toMatchObject({ title: 'Custom headers', multiline: true });
    expect(space.fields[3]).toMatchObject({ title: 'Delivery policy', enum: ['standard', 'extended'] });
    expect(space.fields[0].urlSchemes).toEqual(['https']);
    const site = (await world.ada('GET', `/v1/installations/${world.site}?view=page`)).body;
    expect(site.fields.map((f: { name: string }) => f.name)).toEqual([
      'url',
      'site_view',
      'page_feedback',
      'headers',
      'delivery_policy',
    ]);
  });
});

describe('a webhook installation’s configuration, private networks allowed', () => {
  const world = webhookWorldFor(backend, { allowPrivateNetwork: true });

  it('takes http and loopback URLs, still refuses other schemes', async () => {
    const http = await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, {
      url: 'http://127.0.0.1:3997/hook',
    });
    expect(http.status).toBe(200);
    const ftp = await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, {
      url: 'ftp://127.0.0.1:3997/hook',
    });
    expect(ftp.status).toBe(400);
    expect(ftp.body.error.errors[0].message).toMatch(/^`url` must be an absolute https or http URL/);
    expect((await world.ada('GET', `/v1/installations/${world.space}`)).body.configuration.url).toBe(
      'http://127.0.0.1:3997/hook',
    );
    const page = (await world.ada('GET', `/v1/installations/${world.space}?view=page`)).body;
    expect(page.fields[0].urlSchemes).toEqual(['https', 'http']);
  });
});
