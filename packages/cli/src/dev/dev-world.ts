/**
 * What `portico dev` sets up in its platform, once per data directory and again where missing:
 * the manifest's organization, the space `dev-space`, the site `dev-site`, a user `dev-user` (an
 * admin of the organization, whose token publishes and installs, as a developer's would), and the
 * integration installed at organization level and into that space and site, those its target
 * allows (a GitBook-dialect manifest's `target`; a Portico integration's is `all`).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PorticoError } from '@portico/client';
import { type DevTarget, installsInto, type PlaceKind } from '../dev-target.js';
import type { PlatformClient } from './platform-client.js';

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
  /** Absent where the integration's target leaves spaces out. */
  space?: InstallationView | undefined;
  /** Absent where the integration's target leaves sites out. */
  site?: InstallationView | undefined;
}

/** The dev place of each kind. */
export const DEV_PLACES: Record<PlaceKind, string> = { space: DEV_SPACE, site: DEV_SITE };

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
    await admin.create(admin.portico.POST('/v1/orgs', { body: { id: organization, title: organization } }));
  } catch (error) {
    if (error instanceof PorticoError && error.status === 400) {
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
    const options = { params: { path: { org: organization } }, body: { id, title } };
    await admin.create(
      kind === 'spaces'
        ? admin.portico.POST('/v1/orgs/{org}/spaces', options)
        : admin.portico.POST('/v1/orgs/{org}/sites', options),
    );
    const place = await admin.call(
      kind === 'spaces'
        ? admin.portico.GET('/v1/spaces/{id}', { params: { path: { id } } })
        : admin.portico.GET('/v1/sites/{id}', { params: { path: { id } } }),
    );
    if (place.organization !== organization) {
      throw new DevWorldError(
        `the ${kind === 'spaces' ? 'space' : 'site'} ${id} of this data directory belongs to the organization "${place.organization}", not to the manifest's "${organization}": start over with \`portico dev --fresh\``,
      );
    }
  }
  const tokenFile = join(dataDir, USER_TOKEN_FILE);
  const created = await admin.create(admin.portico.POST('/v1/users', { body: { id: DEV_USER, name: 'Developer' } }));
  if (created !== undefined) writeFileSync(tokenFile, `${created.token}\n`, { mode: 0o600 });
  else if (!existsSync(tokenFile)) {
    throw new DevWorldError(
      `the user ${DEV_USER} exists but its token file ${tokenFile} is gone: start over with \`portico dev --fresh\``,
    );
  }
  await admin.call(
    admin.portico.PUT('/v1/orgs/{org}/members/{user}', {
      params: { path: { org: organization, user: DEV_USER } },
      body: { role: 'admin' },
    }),
  );
  return admin.as(readFileSync(tokenFile, 'utf8').trim());
}

/**
 * The integration's installations in the organization and in the dev space and site its target
 * allows, made where missing; an installation in a place the target leaves out (left by a version
 * whose target allowed it) is uninstalled, so the dev world is what installing this version makes.
 * Answers them and those it removed.
 */
export async function ensureInstallations(
  user: PlatformClient,
  organization: string,
  integration: string,
  target: DevTarget,
): Promise<{ installations: DevInstallations; removed: InstallationView[] }> {
  const org = await user.call(user.portico.GET('/v1/orgs/{org}', { params: { path: { org: organization } } }));
  const top: InstallationView =
    org.installations.find((i) => i.integration === integration) ??
    (await user.call(
      user.portico.POST('/v1/orgs/{org}/installations', {
        params: { path: { org: organization } },
        body: { integration },
      }),
    ));
  const installations: DevInstallations = { organization: top };
  const removed: InstallationView[] = [];
  for (const kind of ['space', 'site'] as const) {
    const id = DEV_PLACES[kind];
    const place = await user.call(
      kind === 'space'
        ? user.portico.GET('/v1/spaces/{id}', { params: { path: { id } } })
        : user.portico.GET('/v1/sites/{id}', { params: { path: { id } } }),
    );
    const found: InstallationView | undefined = place.installations.find((i) => i.integration === integration);
    if (installsInto(target, kind)) {
      const path = { params: { path: { id: top.id, target: id } } };
      installations[kind] =
        found ??
        (await user.call(
          kind === 'space'
            ? user.portico.POST('/v1/installations/{id}/spaces/{target}', path)
            : user.portico.POST('/v1/installations/{id}/sites/{target}', path),
        ));
    } else if (found !== undefined) {
      await user.call(user.portico.DELETE('/v1/installations/{id}', { params: { path: { id: found.id } } }));
      removed.push(found);
    }
  }
  return { installations, removed };
}
