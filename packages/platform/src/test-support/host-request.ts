/** A host dispatch for tests: a public-endpoint request (a `fetch` event) to an organization installation. */
import type { OrganizationInstallationEnvironment, PlatformEvent } from '@portico/runtime';
import type { HostRequest } from '../hosts/host.js';

export const environment: OrganizationInstallationEnvironment = {
  apiEndpoint: 'http://127.0.0.1:9',
  apiTokens: { installation: 't' },
  integration: { name: 'x', urls: { publicEndpoint: 'https://p.test/public' } },
  id: 'inst_1',
  status: 'active',
  configuration: {},
  urls: { publicEndpoint: 'https://p.test/public' },
  secrets: {},
  installationKey: 'k',
  organization: 'acme',
  target: 'organization',
  space_selection: { mode: 'all' },
  site_selection: { mode: 'all' },
  externalIds: [],
};

/** `GET https://p.test/public<path>` as the dispatcher hands it to a host. */
export function fetchRequest(path: string, installationId = 'inst_1'): HostRequest {
  const event = {
    type: 'fetch',
    eventId: `e-${path}`,
    request: { method: 'GET', url: `https://p.test/public${path}`, headers: [] },
  } as PlatformEvent;
  return { method: 'POST', envelope: { event, environment }, installationId };
}
