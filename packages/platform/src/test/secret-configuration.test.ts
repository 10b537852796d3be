/**
 * Members see an installation's configuration with its secrets masked (the contract's Roles), on
 * SQLite and PostgreSQL: what an OAuth button stored reads `********` for a member in every view
 * that holds the configuration (the installation, its page, the organization's page, the space's
 * page), while an admin and the operator read it as it is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MASKED } from '../installations/secret-configuration.js';
import { backends } from '../test-support/backends.js';
import { manifest, startWorld, type World } from '../test-support/world.js';

const BUTTON = `      credentials:
        type: button
        button_text: Connect
        callback_url: /oauth
`;

describe.each(backends)('secret configuration values on $name', (backend) => {
  let world: World;
  let org: string;
  let space: string;
  const stored = { access_token: 'gho_secret-token', refresh_token: 'r-secret' };

  beforeAll(async () => {
    world = await startWorld(backend);
    const ada = world.as(world.tokens.ada);
    // A button at each level: the account's after its properties, the site's last.
    const text = manifest('vault', 'acme', 'private', BUTTON.replace('credentials', 'site_credentials')).replace(
      '    required: [url]',
      `${BUTTON}    required: [url]`,
    );
    const published = await ada('POST', '/v1/integrations', { manifest: text, script: 'export default {}' });
    expect(published.status).toBe(201);
    org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'vault' })).body.id;
    const saved = await ada('PATCH', `/v1/installations/${org}/configuration`, {
      url: 'https://example.test',
      credentials: stored,
    });
    expect(saved.status).toBe(200);
    space = (await ada('POST', `/v1/installations/${org}/spaces/acme-space`)).body.id;
    const site = await ada('PATCH', `/v1/installations/${space}/configuration`, { site_credentials: stored });
    expect(site.status).toBe(200);
  });
  afterAll(() => world?.close());

  it('masks a button value for a member in every view of the configuration', async () => {
    const bob = world.as(world.tokens.bob);
    const installation = await bob('GET', `/v1/installations/${org}`);
    expect(installation.status).toBe(200);
    expect(installation.body.configuration).toEqual({ url: 'https://example.test', retries: 3, credentials: MASKED });
    const page = await bob('GET', `/v1/installations/${org}?view=page`);
    expect(page.body.configuration.credentials).toBe(MASKED);
    // The page still says the button is connected, and the configuration still validates.
    expect(page.body.fields.find((f: { name: string }) => f.name === 'credentials').connected).toBe(true);
    expect(page.body.errors).toEqual([]);
    const organization = await bob('GET', '/v1/orgs/acme');
    const listed = organization.body.installations.find((i: { id: string }) => i.id === org);
    expect(listed.configuration.credentials).toBe(MASKED);
    const bodies = [installation.body, page.body, organization.body];
    for (const body of bodies) expect(JSON.stringify(body)).not.toContain('secret-token');
    const ofSpace = await bob('GET', `/v1/installations/${space}`);
    expect(ofSpace.body.configuration).toEqual({ enabled: true, site_credentials: MASKED });
    const place = await bob('GET', '/v1/spaces/acme-space');
    expect(place.status).toBe(200);
    expect(place.body.installations.find((i: { id: string }) => i.id === space).configuration.site_credentials).toBe(
      MASKED,
    );
    for (const body of [ofSpace.body, place.body]) expect(JSON.stringify(body)).not.toContain('secret-token');
  });

  it('shows the value as it is to an admin and to the operator', async () => {
    for (const reader of [world.as(world.tokens.ada), world.admin]) {
      expect((await reader('GET', `/v1/installations/${org}`)).body.configuration.credentials).toEqual(stored);
      expect((await reader('GET', `/v1/installations/${org}?view=page`)).body.configuration.credentials).toEqual(
        stored,
      );
      expect(
        (await reader('GET', '/v1/spaces/acme-space')).body.installations[0].configuration.site_credentials,
      ).toEqual(stored);
    }
  });
});
