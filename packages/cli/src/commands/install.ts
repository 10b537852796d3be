import { ServerFailure } from '../api-client.js';
import { resolveTarget, type ServerOptions } from '../api-target.js';
import { EXIT_OK, runCommand, usage } from '../command-error.js';
import type { InstallationRead } from '../installation-labels.js';
import type { Io } from '../io.js';
import { withPath } from '../property-problem.js';

export interface InstallOptions extends ServerOptions {
  org?: string;
  space?: string[];
  site?: string[];
  shareToken?: string;
  json?: boolean;
}

interface Installed extends InstallationRead {
  /** It was installed already; this is that installation. */
  existing: boolean;
  /** What keeps it pending (from the installation page's view). */
  errors?: { path: string; message: string }[];
}

/**
 * `portico install INTEGRATION --org ORG [--space ID…] [--site ID…]`: installs the integration in
 * the organization and into each space and site named; what is installed already is kept (and
 * shown), so a setup script can run it again. Prints each installation as `ID TARGET STATUS`.
 * Exit status: 0 installed (or already), 1 refused, 2 usage.
 */
export function install(integration: string, options: InstallOptions, io: Io, env: NodeJS.ProcessEnv = process.env) {
  return runCommand('install', io, async () => {
    const { client, dev } = resolveTarget(options, io, env);
    const org = options.org ?? dev?.organization;
    if (org === undefined) throw usage('give the organization to install into with --org ORG');
    const orgPath = `/v1/orgs/${encodeURIComponent(org)}`;
    const top = await createOrFind(
      () =>
        client.send<InstallationRead>('POST', `${orgPath}/installations`, {
          integration,
          ...(options.shareToken ? { shareToken: options.shareToken } : {}),
        }),
      async () =>
        (await client.get<{ installations: InstallationRead[] }>(orgPath)).installations.find(
          (i) => i.integration === integration,
        ),
    );
    const below: Installed[] = [];
    for (const [type, ids] of [
      ['space', options.space ?? []],
      ['site', options.site ?? []],
    ] as const) {
      for (const id of ids) {
        below.push(
          await createOrFind(
            () =>
              client.send<InstallationRead>(
                'POST',
                `/v1/installations/${encodeURIComponent(top.id)}/${type}s/${encodeURIComponent(id)}`,
              ),
            async () =>
              (
                await client.get<{ installations: InstallationRead[] }>(`/v1/${type}s/${encodeURIComponent(id)}`)
              ).installations.find((i) => i.integration === integration),
          ),
        );
      }
    }
    const all = [top, ...below];
    for (const installation of all) {
      if (installation.status === 'pending') {
        const page = await client.get<{ errors?: { path: string; message: string }[] }>(
          `/v1/installations/${encodeURIComponent(installation.id)}?view=page`,
        );
        installation.errors = page.errors ?? [];
      }
    }
    if (options.json) {
      io.out(
        `${JSON.stringify({
          organization: top,
          spaces: below.filter((i) => i.target.type === 'space'),
          sites: below.filter((i) => i.target.type === 'site'),
        })}\n`,
      );
      return EXIT_OK;
    }
    for (const installation of all) {
      io.out(`${installation.id} ${installation.target.type} ${installation.target.id} ${installation.status}\n`);
      if (installation.existing)
        io.err(`portico install: ${installation.target.type} ${installation.target.id}: installed already\n`);
      for (const error of installation.errors ?? []) {
        io.err(`portico install: ${installation.id} is pending: ${withPath(error)}\n`);
      }
    }
    const pending = all.filter((i) => i.status === 'pending');
    if (pending.length > 0) {
      io.err(`portico install: configure what is missing with portico configure ${pending[0]?.id} key=value…\n`);
    }
    return EXIT_OK;
  });
}

/** Creates; on 409 (installed already) finds what is there. */
async function createOrFind(
  create: () => Promise<InstallationRead>,
  find: () => Promise<InstallationRead | undefined>,
): Promise<Installed> {
  try {
    return { ...(await create()), existing: false };
  } catch (error) {
    if (!(error instanceof ServerFailure) || error.status !== 409) throw error;
    const found = await find();
    if (found === undefined) throw error;
    return { ...found, existing: true };
  }
}
