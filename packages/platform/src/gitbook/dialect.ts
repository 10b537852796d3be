/**
 * What the platform keeps of a version written for GitBook's runtime (the GitBook dialect,
 * decision 030): the facts its `gitbook-manifest.yaml` states beyond Portico's model, sent by
 * `portico publish` beside the translated manifest and stored with the version. A version that
 * has them is spoken to in that runtime's shapes (environment.ts) and may call the API under
 * `/compat/gitbook`.
 */
import type { GitBookDialect, Manifest } from '@portico/manifest';
import { invalid } from '../errors/domain-error.js';
import type { Undeclared } from '../installations/configuration.js';

/** The dialect's facts as published: the manifest's `envs` stay with the CLI (it applied one already). */
export type GitBookFacts = Omit<GitBookDialect, 'envs' | 'env'>;

/**
 * Refuses facts that contradict the manifest they came with (400 `invalid_gitbook`): each block
 * they describe must be a block of the manifest. The shapes themselves are checked at the HTTP edge.
 */
export function checkGitBookFacts(manifest: Manifest, facts: GitBookFacts): void {
  const blocks = (manifest.blocks ?? []).map((block) => block.id);
  const problems: string[] = [];
  for (const id of Object.keys(facts.blocks)) {
    if (!blocks.includes(id)) {
      problems.push(
        `gitbook.blocks.${id}: the manifest has no block "${id}" (${blocks.length > 0 ? `its blocks are ${blocks.map((b) => `"${b}"`).join(', ')}` : 'it has no `blocks`'}); describe only the manifest's blocks`,
      );
    }
  }
  if (problems.length > 0) {
    throw invalid(
      'invalid_gitbook',
      `the GitBook dialect's facts do not match the manifest: ${problems.join('; ')}. Publish with \`portico publish\`, which sends them as the manifest states them`,
    );
  }
}

/**
 * Refuses installing a GitBook-dialect integration into a kind of place its `target` leaves out
 * (400 `outside_target`): `organization` is installed in the organization only, `space` also in
 * spaces, `site` also in sites, `all` anywhere. Nothing for a Portico integration.
 */
export function checkTarget(name: string, facts: GitBookFacts | undefined, kind: 'space' | 'site'): void {
  if (facts === undefined || facts.target === 'all' || facts.target === kind) return;
  const where =
    facts.target === 'organization' ? 'in the organization only' : `in the organization and its ${facts.target}s only`;
  const instead = facts.target === 'organization' ? '' : `; install it into a ${facts.target} instead`;
  throw invalid(
    'outside_target',
    `${name} cannot be installed into a ${kind}: its gitbook-manifest.yaml says \`target: ${facts.target}\` (it is installed ${where})${instead}`,
  );
}

/** How a version's configurations count properties its manifest does not declare (configuration.ts). */
export function undeclaredOf(facts: GitBookFacts | undefined): Undeclared {
  return facts === undefined ? 'refused' : 'allowed';
}

/** The stored facts of a version (null: a version written for Portico). */
export function readGitBookFacts(stored: string | null): GitBookFacts | undefined {
  return stored === null ? undefined : (JSON.parse(stored) as GitBookFacts);
}
