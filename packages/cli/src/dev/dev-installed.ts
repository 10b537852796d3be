/**
 * What `portico dev` says about the integration it runs and where it is installed: the banner it
 * prints once ready, the lines of a reload that installed or uninstalled it (a new `target`), the
 * labels of the dispatch stream, and the contents of dev-server.json (which the other commands in
 * the directory read). Only the places its target allows are named; the rest are said to be unused.
 */
import type { DevServer } from '../dev-server-file.js';
import { type DevTarget, leftOut, type PlaceKind, targetReason } from '../dev-target.js';
import { DEV_PLACES, type DevInstallations, type InstallationView } from './dev-world.js';
import { clock, type WatchedInstallation } from './dispatch-stream.js';

/** The integration as published and installed now. */
export interface Installed {
  name: string;
  organization: string;
  version: number;
  /** Where the published version may be installed (its GitBook-dialect `target`; `all` for a Portico integration). */
  target: DevTarget;
  installations: DevInstallations;
}

/** Its installations in the dev space and site (those its target allows). */
export function placesOf(installations: DevInstallations): { kind: PlaceKind; installation: InstallationView }[] {
  return (['space', 'site'] as const).flatMap((kind) => {
    const installation = installations[kind];
    return installation === undefined ? [] : [{ kind, installation }];
  });
}

/** The banner: where it is installed, the dashboard's sign-in link, the public endpoints, the API. */
export function banner(
  installed: Installed,
  at: { url: string; code: string; ms: number; adminTokenFile: string },
): string {
  const { organization } = installed.installations;
  const status = (i: { status: string }) =>
    i.status === 'active' ? '' : `, ${i.status}: configure it in the dashboard`;
  const places = placesOf(installed.installations);
  const where = [
    `the organization ${installed.organization}`,
    ...places.map(({ kind }) => `the ${kind} ${DEV_PLACES[kind]}`),
  ];
  const unused = leftOut(installed.target);
  return (
    `\n${installed.name} version ${installed.version} is installed in ${where.slice(0, -1).join(', ')}${where.length > 1 ? ' and ' : ''}${where.at(-1)} (ready in ${Math.round(at.ms)} ms)\n\n` +
    `Dashboard: ${at.url}/installations/${organization.id}#code=${at.code}\n` +
    '  (the link signs you in once, within 15 minutes; after that sign in with the admin token)\n' +
    `Public endpoint: ${organization.urls.publicEndpoint} (organization ${installed.organization}${status(organization)})\n` +
    places
      .map(
        ({ kind, installation }) =>
          `Public endpoint: ${installation.urls.publicEndpoint} (${kind} ${DEV_PLACES[kind]}${status(installation)})\n`,
      )
      .join('') +
    (unused.length > 0
      ? `Not installed in ${unused.map((kind) => `the ${kind} ${DEV_PLACES[kind]}`).join(' or ')}: ${targetReason(installed.target)}\n`
      : '') +
    `API: ${at.url}; admin token in ${at.adminTokenFile}\n\n` +
    'Watching for changes; dispatches and console output show below. Ctrl-C stops.\n'
  );
}

/** The lines of a reload with a new target: the places it was installed into and uninstalled from. */
export function movedLines(before: DevInstallations, installed: Installed, removed: InstallationView[]): string {
  const into = placesOf(installed.installations)
    .filter(({ kind }) => before[kind] === undefined)
    .map(
      ({ kind, installation }) =>
        `${clock()} Installed into the ${kind} ${DEV_PLACES[kind]} (target: ${installed.target}): Public endpoint: ${installation.urls.publicEndpoint}\n`,
    );
  const from = removed.map((installation) => {
    const kind = installation.target.type as PlaceKind;
    return `${clock()} Uninstalled from the ${kind} ${DEV_PLACES[kind]} (${installation.id}): ${targetReason(installed.target)}\n`;
  });
  return [...into, ...from].join('');
}

/** The installations the dispatch stream follows, with the labels its lines show. */
export function followed(installed: Installed): WatchedInstallation[] {
  const { organization } = installed.installations;
  return [
    { id: organization.id, label: `organization ${installed.organization} (${organization.id})` },
    ...placesOf(installed.installations).map(({ kind, installation }) => ({
      id: installation.id,
      label: `${kind} ${DEV_PLACES[kind]} (${installation.id})`,
    })),
  ];
}

/** What dev-server.json says while `portico dev` runs. */
export function devServerOf(installed: Installed, at: { api: string; adminTokenFile: string }): DevServer {
  return {
    api: at.api,
    adminTokenFile: at.adminTokenFile,
    pid: process.pid,
    integration: installed.name,
    organization: installed.organization,
    ...(installed.target !== 'all' ? { target: installed.target } : {}),
    space: DEV_PLACES.space,
    site: DEV_PLACES.site,
    installations: {
      organization: installed.installations.organization.id,
      ...Object.fromEntries(placesOf(installed.installations).map(({ kind, installation }) => [kind, installation.id])),
    },
  };
}
