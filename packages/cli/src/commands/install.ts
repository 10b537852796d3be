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
    const top = await createOrFind(
      () =>
        client.call(
          client.portico.POST('/v1/orgs/{org}/installations', {
            params: { path: { org } },
            body: { integration, ...(options.shareToken ? { shareToken: options.shareToken } : {}) },
          }),
        ),
      async () =>
        (await client.call(client.portico.GET('/v1/orgs/{org}', { params: { path: { org } } }))).installations.find(
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
              client.call(
                type === 'space'
                  ? client.portico.POST('/v1/installations/{id}/spaces/{target}', {
                      params: { path: { id: top.id, target: id } },
                    })
                  : client.portico.POST('/v1/installations/{id}/sites/{target}', {
                      params: { path: { id: top.id, target: id } },
                    }),
              ),
            async () =>
              (
                await client.call(
                  type === 'space'
                    ? client.portico.GET('/v1/spaces/{id}', { params: { path: { id } } })
                    : client.portico.GET('/v1/sites/{id}', { params: { path: { id } } }),
                )
              ).installations.find((i) => i.integration === integration),
          ),
        );
      }
    }
    const all = [top, ...below];
    for (const installation of all) {
      if (installation.status === 'pending') {
        const page = await client.call(
          client.portico.GET('/v1/installations/{id}', {
            params: { path: { id: installation.id }, query: { view: 'page' } },
          }),
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
