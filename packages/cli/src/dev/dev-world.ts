/**
 * What `portico dev` sets up in its platform, once per data directory and again where missing:
 * the manifest's organization, the space `dev-space`, the site `dev-site`, a user `dev-user` (an
 * admin of the organization, whose token publishes and installs, as a developer's would), and the
 * integration installed at organization level and into that space and site.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiFailure, type PlatformClient } from './platform-client.js';

export const DEV_SPACE = 'dev-space';
export const DEV_SITE = 'dev-site';
export const DEV_USER = 'dev-user';
/** The dev user's token, beside the admin token. */
export const USER_TOKEN_FILE = 'user-token';

export interface InstallationView {
  id: string;
  integration: string;
  status: string;
  target: { type: 'organization' | 'space' | 'site'; id: string };
  urls: { publicEndpoint: string };
}

export interface DevInstallations {
  organization: InstallationView;
  space: InstallationView;
  site: InstallationView;
}

/** A problem of the data directory the developer can fix, with how. */
export class DevWorldError extends Error {}

/**
 * Creates what is missing of the organization, space, site and user; answers a client acting as
 * the dev user.
 */
export async function seedDevWorld(
  admin: PlatformClient,
  dataDir: string,
  organization: string,
): Promise<PlatformClient> {
  try {
    await admin.create('/v1/orgs', { id: organization, title: organization });
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 400) {
      throw new DevWorldError(
        `the manifest's organization "${organization}" cannot be used as an organization id here (${error.message}); use letters, digits, \`_\`, \`-\` or \`.\``,
      );
    }
    throw error;
  }
  for (const [kind, id, title] of [
    ['spaces', DEV_SPACE, 'Development space'],
    ['sites', DEV_SITE, 'Development site'],
  ] as const) {
    await admin.create(`/v1/orgs/${organization}/${kind}`, { id, title });
    const place = await admin.call<{ organization: string }>('GET', `/v1/${kind}/${id}`);
    if (place.organization !== organization) {
      throw new DevWorldError(
        `the ${kind === 'spaces' ? 'space' : 'site'} ${id} of this data directory belongs to the organization "${place.organization}", not to the manifest's "${organization}": start over with \`portico dev --fresh\``,
      );
    }
  }
  const tokenFile = join(dataDir, USER_TOKEN_FILE);
  const created = await admin.create<{ token: string }>('/v1/users', { id: DEV_USER, name: 'Developer' });
  if (created !== undefined) writeFileSync(tokenFile, `${created.token}\n`, { mode: 0o600 });
  else if (!existsSync(tokenFile)) {
    throw new DevWorldError(
      `the user ${DEV_USER} exists but its token file ${tokenFile} is gone: start over with \`portico dev --fresh\``,
    );
  }
  await admin.call('PUT', `/v1/orgs/${organization}/members/${DEV_USER}`, { role: 'admin' });
  return admin.as(readFileSync(tokenFile, 'utf8').trim());
}

/** The integration's installations in the organization, the dev space and the dev site, made where missing. */
export async function ensureInstallations(
  user: PlatformClient,
  organization: string,
  integration: string,
): Promise<DevInstallations> {
  const org = await user.call<{ installations: InstallationView[] }>('GET', `/v1/orgs/${organization}`);
  const top =
    org.installations.find((i) => i.integration === integration) ??
    (await user.call<InstallationView>('POST', `/v1/orgs/${organization}/installations`, { integration }));
  const below = async (type: 'space' | 'site', id: string) => {
    const place = await user.call<{ installations: InstallationView[] }>('GET', `/v1/${type}s/${id}`);
    return (
      place.installations.find((i) => i.integration === integration) ??
      (await user.call<InstallationView>('POST', `/v1/installations/${top.id}/${type}s/${id}`))
    );
  };
  return { organization: top, space: await below('space', DEV_SPACE), site: await below('site', DEV_SITE) };
}
