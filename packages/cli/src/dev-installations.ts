import type { ApiClient } from './api-client.js';
import type { FoundDevServer } from './dev-server-file.js';
import type { InstallationRead } from './installation-labels.js';

/**
 * What `tail` and `deliveries` follow without INSTALLATION in a `portico dev` directory: the
 * integration's installations first (in the organization, and in the dev space and site where its
 * target allows), then every other one in the dev organization, space and site (the webhook
 * integration installed there to try a delivery, say), as they are now.
 */
export async function devInstallations(client: ApiClient, dev: FoundDevServer): Promise<string[]> {
  const { organization: top, space, site } = dev.installations;
  const own = [top, ...(space !== undefined ? [space] : []), ...(site !== undefined ? [site] : [])];
  const organization =
    dev.organization ??
    (await client.call(client.portico.GET('/v1/installations/{id}', { params: { path: { id: top } } }))).organization;
  const places: { installations: InstallationRead[] }[] = await Promise.all([
    client.call(client.portico.GET('/v1/orgs/{org}', { params: { path: { org: organization } } })),
    client.call(client.portico.GET('/v1/spaces/{id}', { params: { path: { id: dev.space } } })),
    client.call(client.portico.GET('/v1/sites/{id}', { params: { path: { id: dev.site } } })),
  ]);
  return [...new Set([...own, ...places.flatMap((place) => place.installations.map((i) => i.id))])];
}
