/**
 * The integration-wide public endpoints of a GitBook-dialect integration
 * (`ANY /v1/integrations/{name}/public[/…]` and `/public-content[/…]`): the URLs its environment
 * gives as `integration.urls.publicEndpoint` and `publicContentEndpoint`, one per integration, so
 * an OAuth integration registers one redirect URL at its provider. A request there reaches the
 * integration's latest version as a `fetch` event (decision 030):
 *
 * - **As an installation's**, when it carries the cookie of an OAuth flow started from the
 *   dashboard for an installation of this integration (calls/oauth-starts.ts sets it on this path
 *   too when the start link is opened): dispatched to that installation with its environment and
 *   token, and recorded as its dispatch, exactly as on the installation's own public endpoint. The
 *   installation comes from the platform's signed cookie, never from what the request says (an
 *   OAuth `state` is the integration's to read): a token reaches only that installation's family.
 *   The integration sees the request at its own path (`/v1/integrations/{name}/public/…`), and
 *   for this request its installations' `urls.publicEndpoint` are that endpoint, so a router
 *   based on either URL matches it (gitbook/environment.ts, seenThroughIntegrationEndpoint).
 * - **On a button's OAuth path without one**: refused (403 `oauth_not_started`), as on an
 *   installation's public endpoint.
 * - **Otherwise, as the integration's**: its environment has `integration`, `apiEndpoint`,
 *   `secrets`, `signingSecrets.integration` and an empty `apiTokens.integration`, and no
 *   installation. Such a call belongs to no installation, so no dispatch is recorded.
 *
 * An integration written for Portico has no integration-wide endpoint (its requests reach each
 * installation's): 404 saying so.
 */

import type { Dispatcher } from '../dispatch/dispatcher.js';
import { DomainError, notFound } from '../errors/domain-error.js';
import { gitbookIntegrationEnvironment, integrationPublicPath } from '../gitbook/environment.js';
import { loadInstallation } from '../installations/load.js';
import type { ServiceContext } from '../types.js';
import { fetchEventOf, hostFailure, integrationAnswer, refusal } from './integration-calls.js';
import { integrationOAuthGate } from './oauth-starts.js';

export async function callIntegrationPublicEndpoint(
  ctx: ServiceContext,
  dispatcher: Dispatcher,
  name: string,
  kind: 'public' | 'public-content',
  request: Request,
): Promise<Response> {
  const bundle = await dispatcher.bundle(name);
  if (bundle.gitbook === undefined) {
    throw notFound(
      `an integration-wide public endpoint of ${name}: only integrations written for GitBook's runtime have one; requests reach ${name} at each installation's public endpoint, /v1/installations/{id}/public`,
    );
  }
  const url = new URL(request.url);
  const prefix = integrationPublicPath(name, kind);
  const gate = integrationOAuthGate(ctx, prefix, bundle.manifest, request);
  const flowInstallation =
    kind === 'public' && gate.installationId !== undefined
      ? await loadInstallation(ctx, gate.installationId).catch(() => undefined)
      : undefined;
  if (flowInstallation !== undefined && flowInstallation.integration_name === name) {
    if (flowInstallation.status === 'paused') {
      throw new DomainError(
        'unavailable',
        'installation_paused',
        `the installation ${flowInstallation.id} is paused; an organization admin can resume it`,
      );
    }
    const { event, body } = await fetchEventOf(ctx, request, url, flowInstallation.id);
    const response = await dispatcher.send(flowInstallation, event, body).catch(hostFailure);
    return integrationAnswer(request, response);
  }
  if (gate.guarded) return refusal(request, 403, gate.refusal.code, gate.refusal.message);
  const { event, body } = await fetchEventOf(ctx, request, url, undefined);
  const secrets = bundle.secrets === null ? {} : (JSON.parse(ctx.box.open(bundle.secrets)) as Record<string, string>);
  const environment = gitbookIntegrationEnvironment(ctx, {
    name,
    manifest: bundle.manifest,
    facts: bundle.gitbook,
    version: bundle.version,
    secrets,
  });
  const response = await dispatcher.registry
    .hostFor(bundle)
    .dispatch(bundle, {
      method: 'POST',
      // The envelope carries it as JSON, in that runtime's shapes (Portico's SDK never reads it).
      envelope: { event, environment: environment as never, ...(body ? { body } : {}) },
    })
    .catch(hostFailure);
  return integrationAnswer(request, response);
}
