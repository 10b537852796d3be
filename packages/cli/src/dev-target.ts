/**
 * Where `portico dev` installs the integration it runs: a GitBook-dialect integration's manifest
 * `target` says where it may be installed (`organization`: the organization only; `space`: also
 * in spaces; `site`: also in sites; `all`, the default, anywhere), and the platform refuses the
 * rest. A Portico integration is installed anywhere (`all`). `portico dev` and `portico emit` say
 * the same thing about a place the target leaves out.
 */
import type { GitBookTarget } from '@portico/manifest';

export type DevTarget = GitBookTarget;
export type PlaceKind = 'space' | 'site';

/** Whether an integration with `target` may be installed in a kind of place. */
export function installsInto(target: DevTarget, kind: PlaceKind): boolean {
  return target === 'all' || target === kind;
}

/** The kinds of place `target` leaves out. */
export function leftOut(target: DevTarget): PlaceKind[] {
  return (['space', 'site'] as const).filter((kind) => !installsInto(target, kind));
}

/** Why the integration is not installed in a kind of place: its manifest's `target`, and where that installs it. */
export function targetReason(target: DevTarget): string {
  const where =
    target === 'organization'
      ? 'the organization only'
      : target === 'all'
        ? 'anywhere'
        : `the organization and its ${target}s only`;
  return `its gitbook-manifest.yaml says \`target: ${target}\` (installed in ${where})`;
}
