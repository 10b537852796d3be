import type { ScopeRequest, ScopesView } from '@portico/platform';
import { resolveTarget, type ServerOptions } from '../api-target.js';
import { EXIT_OK, runCommand } from '../command-error.js';
import type { Io } from '../io.js';

export interface ScopesOptions extends ServerOptions {
  accept?: boolean;
  json?: boolean;
}

/** What one installation was granted and is asked for. */
type Shown = { installationId: string; integration: string } & ScopesView;

/**
 * `portico scopes [INSTALLATION…] [--accept]` (DESIGN.md "Granted scopes"): what each organization
 * installation was granted and what its integration's latest version asks for beyond that
 * (GET /v1/installations/{id}); without INSTALLATION, every pending request on the server
 * (GET /v1/scope-requests, the operator's token). `--accept` grants what each asks for, as shown
 * (POST /v1/installations/{id}/scopes/accept with those scopes: a request that grew meanwhile is
 * refused, and nothing is granted for it). Exit status: 0 shown or accepted, 1 refused, 2 usage.
 */
export function scopes(installations: string[], options: ScopesOptions, io: Io, env: NodeJS.ProcessEnv = process.env) {
  return runCommand('scopes', io, async () => {
    const { client } = resolveTarget(options, io, env);
    const shown: Shown[] = [];
    if (installations.length === 0) {
      const requests: ScopeRequest[] = await client.call(client.portico.GET('/v1/scope-requests'));
      shown.push(
        ...requests.map(({ installationId, integration, granted, requested }) => ({
          installationId,
          integration,
          granted,
          requested,
        })),
      );
    } else {
      for (const id of new Set(installations)) {
        const read = await client.call(client.portico.GET('/v1/installations/{id}', { params: { path: { id } } }));
        // (A read of an installation always carries its scopes; the schema shares them with writes, which do not.)
        const { granted = [], requested = [] } = read.scopes ?? {};
        shown.push({ installationId: id, integration: read.integration, granted, requested });
      }
    }
    if (options.accept) {
      for (const [index, one] of shown.entries()) {
        if (one.requested.length === 0) continue;
        const accepted: ScopesView = await client.call(
          client.portico.POST('/v1/installations/{id}/scopes/accept', {
            params: { path: { id: one.installationId } },
            body: { scopes: [...one.granted, ...one.requested] },
          }),
        );
        shown[index] = { ...one, ...accepted };
        if (!options.json) io.err(`portico scopes: ${one.installationId} granted ${one.requested.join(', ')}\n`);
      }
    }
    if (options.json) {
      io.out(`${JSON.stringify(shown)}\n`);
      return EXIT_OK;
    }
    if (shown.length === 0) {
      io.err('portico scopes: no installation asks for new permissions\n');
      return EXIT_OK;
    }
    for (const one of shown) io.out(scopeLine(one));
    return EXIT_OK;
  });
}

/** One installation on a line: id, integration, what it was granted, what it asks for. */
export function scopeLine(one: Shown): string {
  const granted = one.granted.join(', ') || 'nothing';
  const asks = one.requested.length > 0 ? `  asks for new permissions: ${one.requested.join(', ')}` : '';
  return `${one.installationId}  ${one.integration}  granted: ${granted}${asks}\n`;
}
