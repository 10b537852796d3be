/**
 * A GitBook-dialect integration's public endpoints end to end, on SQLite and PostgreSQL: built
 * from its source directory (test-support/gitbook/gb-endpoint: `gitbook-manifest.yaml`,
 * TypeScript, `MODE`) with the real CLI (`portico publish`), installed with `portico install` in
 * the organization and a space, run in workerd. Its setup handlers write their configurations
 * through `apiEndpoint`; a request to an installation's public endpoint reaches it as that
 * installation (with its body and what it stored), and one to the integration-wide endpoints
 * (`integration.urls`) with the integration's environment: no installation, no token.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../../platform/src/test-support/backends.js';
import { gitbookFixture, portico, serverWorld, until } from '../test-support/server-world.js';

interface Installed {
  organization: { id: string; status: string };
  spaces: { id: string; status: string }[];
}

describe.each(backends)('a GitBook-dialect public endpoint published and run on $name', (backend) => {
  const world = serverWorld({ backend, allowPrivateNetwork: false });
  let organization: string;
  let space: string;
  const integrationEndpoint = () => `${world.url}/v1/integrations/gb-endpoint/public`;

  beforeAll(async () => {
    const as = ['--api', world.url, '--token', world.adaToken];
    const published = await portico(['publish', gitbookFixture('gb-endpoint'), ...as]);
    expect(published.stderr).toBe('');
    expect(published.stdout).toMatch(/^Published gb-endpoint version 1 /);
    const installed = await portico(['install', 'gb-endpoint', '--org', 'acme', '--space', 'docs', '--json', ...as]);
    expect(installed.code, installed.stderr).toBe(0);
    const { organization: top, spaces } = JSON.parse(installed.stdout) as Installed;
    organization = top.id;
    space = spaces[0]?.id ?? '';
    expect(space).toMatch(/^inst_\w+$/);
  }, 90_000);

  it('receives its setup events and writes its configurations through apiEndpoint', async () => {
    const written = await until(
      'the setup handlers to write both configurations',
      async () => {
        const top = await world.api('GET', `/v1/installations/${organization}`);
        const place = await world.api('GET', `/v1/installations/${space}`);
        return top.configuration.greeting !== undefined && place.configuration.room !== undefined
          ? [top.configuration, place.configuration]
          : undefined;
      },
      30_000,
    );
    expect(written).toEqual([{ greeting: 'Hello from production' }, { room: 'room of docs' }]);
    // Its dispatch is recorded once it has answered (after its write).
    const setup = await until('the space installation setup dispatch', async () => {
      const dispatches = (await world.api('GET', `/v1/installations/${space}/dispatches`)) as { type: string }[];
      return dispatches.find((dispatch) => dispatch.type === 'space_installation_setup');
    });
    expect(setup).toMatchObject({ host: 'workerd', status: 200 });
  }, 60_000);

  it('answers at an installation’s public endpoint as that installation, with the request’s body', async () => {
    const { urls } = await world.api('GET', `/v1/installations/${organization}`);
    expect(urls.publicEndpoint).toBe(`${world.url}/v1/installations/${organization}/public`);
    const top = await fetch(`${urls.publicEndpoint}/echo?from=organization`);
    expect(top.status, await top.clone().text()).toBe(200);
    expect(await top.json()).toEqual({
      path: `/v1/installations/${organization}/public/echo`,
      query: '?from=organization',
      method: 'GET',
      body: null,
      mode: 'production',
      installation: organization,
      organization: 'acme',
      greeting: 'Hello from production',
      space: null,
      room: null,
      token: true,
      urls: {
        publicEndpoint: integrationEndpoint(),
        publicContentEndpoint: `${world.url}/v1/integrations/gb-endpoint/public-content`,
      },
    });

    const inSpace = await fetch(`${world.url}/v1/installations/${space}/public/echo`, {
      method: 'POST',
      body: 'a body for the space',
    });
    expect(inSpace.status, await inSpace.clone().text()).toBe(200);
    expect(await inSpace.json()).toMatchObject({
      method: 'POST',
      body: 'a body for the space',
      installation: organization,
      space: 'docs',
      room: 'room of docs',
      token: true,
    });
    // What it does not route, it answers itself.
    const missing = await fetch(`${urls.publicEndpoint}/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: `no route /v1/installations/${organization}/public/nowhere` });
  });

  it('answers at the integration-wide endpoints with the integration’s environment: no installation, no token', async () => {
    for (const kind of ['public', 'public-content']) {
      const response = await fetch(`${world.url}/v1/integrations/gb-endpoint/${kind}/echo`, {
        method: 'PUT',
        body: kind,
      });
      expect(response.status, await response.clone().text()).toBe(200);
      expect(await response.json()).toMatchObject({
        path: `/v1/integrations/gb-endpoint/${kind}/echo`,
        method: 'PUT',
        body: kind,
        installation: null,
        greeting: null,
        space: null,
        token: false,
      });
    }
    const dispatches = (await world.api('GET', `/v1/installations/${organization}/dispatches`)) as {
      type: string;
    }[];
    // Those were no installation's requests: only the installation's own are in its log.
    expect(dispatches.filter((dispatch) => dispatch.type === 'fetch')).toHaveLength(2);
  });
});
