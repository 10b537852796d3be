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
    (await client.get<{ organization: string }>(`/v1/installations/${encodeURIComponent(top)}`)).organization;
  const places = await Promise.all([
    client.get<{ installations: InstallationRead[] }>(`/v1/orgs/${encodeURIComponent(organization)}`),
    client.get<{ installations: InstallationRead[] }>(`/v1/spaces/${encodeURIComponent(dev.space)}`),
    client.get<{ installations: InstallationRead[] }>(`/v1/sites/${encodeURIComponent(dev.site)}`),
  ]);
  return [...new Set([...own, ...places.flatMap((place) => place.installations.map((i) => i.id))])];
}
