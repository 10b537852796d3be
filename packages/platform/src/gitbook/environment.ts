/**
 * The environment of a dispatch to a version written for GitBook's runtime (DESIGN.md "the
 * GitBook dialect"): that runtime's shapes, built from the same stored facts as Portico's own
 * environment (environment.ts), which integrations written for Portico keep unchanged.
 *
 * - `apiEndpoint` is `<public URL>/compat/gitbook`, where Portico answers the part of that
 *   platform's API these integrations call (http/compat-gitbook-routes.ts).
 * - `apiTokens.installation` is the installation's token (for a space or site installation, its
 *   own); `apiTokens.integration` is the same token: Portico has no integration-wide token, and
 *   an installation's token reaches only what that installation may.
 * - `installation` is the organization installation, with `target: { organization }`;
 *   `spaceInstallation` / `siteInstallation` the space or site installation an event is for.
 * - `signingSecrets` are derived from the platform's secret key per integration and per
 *   installation (the same on every node, never stored); Portico signs nothing with them yet.
 *
 * Written from that platform's documented API shapes; none of its code is used.
 */
import type { Manifest } from '@portico/manifest';
import type { InstallationStatus, PlatformEvent } from '@portico/runtime';
import { grantOf } from '../installations/granted-scopes.js';
import type { Selections } from '../installations/views.js';
import { publicEndpointOf } from '../installations/views.js';
import { assetUrl } from '../integrations/assets.js';
import type { Database } from '../storage/schema.js';
import type { ServiceContext } from '../types.js';
import type { GitBookFacts } from './dialect.js';

type Row = Database['installations'];
type Configuration = Record<string, unknown>;

export interface GitBookInstallation extends Selections {
  id: string;
  status: InstallationStatus;
  target: { organization: string };
  configuration: Configuration;
  externalIds: string[];
  urls: { publicEndpoint: string };
}

interface PlaceInstallation {
  /** The integration's name. */
  integration: string;
  /** The organization installation's id. */
  installation: string;
  status: InstallationStatus;
  configuration: Configuration;
  externalIds: string[];
  urls: { publicEndpoint: string };
}
export interface GitBookSpaceInstallation extends PlaceInstallation {
  space: string;
}
export interface GitBookSiteInstallation extends PlaceInstallation {
  site: string;
}

/**
 * The integration as that runtime describes it (`environment.integration`): its manifest's facts
 * with the URLs Portico serves. Lists are always there (`externalLinks: []` when it has none), as
 * integrations read `externalLinks[0]` without a check.
 */
export interface GitBookIntegration {
  name: string;
  title: string;
  description: string;
  summary: string;
  organization: string;
  visibility: string;
  version: string;
  target: GitBookFacts['target'];
  scopes: string[];
  categories: string[];
  externalLinks: { label: string; url: string }[];
  previewImages: string[];
  blocks: { id: string; title: string; description: string }[];
  contentSecurityPolicy?: string;
  urls: { publicEndpoint: string; publicContentEndpoint: string; icon?: string };
}

export interface GitBookEnvironment {
  apiEndpoint: string;
  apiTokens: { installation: string; integration: string };
  integration: GitBookIntegration;
  installation: GitBookInstallation;
  spaceInstallation?: GitBookSpaceInstallation;
  siteInstallation?: GitBookSiteInstallation;
  signingSecrets: {
    integration: string;
    installation: string;
    spaceInstallation?: string;
    siteInstallation?: string;
  };
  secrets: Record<string, string>;
}

/** Where that runtime's API client reaches Portico: `<public URL>/compat/gitbook`. */
export function gitbookApiEndpoint(ctx: ServiceContext): string {
  return `${ctx.publicUrl}/compat/gitbook`;
}

/** The path of an integration's integration-wide public endpoint (`/v1/integrations/{name}/public`). */
export function integrationPublicPath(name: string, kind: 'public' | 'public-content' = 'public'): string {
  return `/v1/integrations/${encodeURIComponent(name)}/${kind}`;
}

/**
 * The integration-wide URLs that runtime reads (`integration.urls`), served by
 * calls/integration-public-endpoints.ts: a request there reaches the integration's latest
 * version, as the installation whose OAuth flow it carries or with the integration's environment.
 */
export function integrationUrls(ctx: ServiceContext, name: string) {
  return {
    publicEndpoint: `${ctx.publicUrl}${integrationPublicPath(name)}`,
    publicContentEndpoint: `${ctx.publicUrl}${integrationPublicPath(name, 'public-content')}`,
  };
}

/**
 * The environment of a request to the integration-wide endpoints that is no installation's:
 * the integration's own part of that runtime's environment, with no installation and no token
 * (Portico has no integration-wide token; an installation's token comes with its own requests).
 */
export interface GitBookIntegrationEnvironment {
  apiEndpoint: string;
  apiTokens: { integration: string };
  integration: GitBookEnvironment['integration'];
  signingSecrets: { integration: string };
  secrets: Record<string, string>;
}

/** `environment.integration`, from the version's manifest and facts. */
export function gitbookIntegration(
  ctx: ServiceContext,
  input: { name: string; manifest: Manifest; facts: GitBookFacts; version: number },
): GitBookIntegration {
  const { name, manifest, facts, version } = input;
  const asset = (which: string) => `${ctx.publicUrl}${assetUrl(name, version, which)}`;
  const policy = facts.contentSecurityPolicy;
  return {
    name,
    title: manifest.title,
    description: manifest.description,
    summary: manifest.summary ?? '',
    organization: manifest.organization,
    visibility: manifest.visibility,
    version: String(version),
    target: facts.target,
    scopes: [...manifest.scopes],
    categories: [...(manifest.categories ?? [])],
    externalLinks: (manifest.externalLinks ?? []).map((link) => ({ label: link.label, url: link.url })),
    previewImages: (manifest.previewImages ?? []).map((_, index) => asset(`preview-${index}`)),
    blocks: (manifest.blocks ?? []).map((block) => ({
      id: block.id,
      title: block.title,
      description: block.description ?? '',
    })),
    ...(policy !== undefined ? { contentSecurityPolicy: policyText(policy) } : {}),
    urls: { ...integrationUrls(ctx, name), ...(manifest.icon !== undefined ? { icon: asset('icon') } : {}) },
  };
}

/** A policy as one header value: directives joined by "; ", without line breaks or a trailing ";". */
export function policyText(policy: string | Record<string, string>): string {
  const directives =
    typeof policy === 'string'
      ? policy.split(';')
      : Object.entries(policy).map(([directive, sources]) => `${directive} ${sources}`);
  return directives
    .map((directive) => directive.replace(/\s+/g, ' ').trim())
    .filter((directive) => directive !== '')
    .join('; ');
}

export function gitbookIntegrationEnvironment(
  ctx: ServiceContext,
  input: { name: string; manifest: Manifest; facts: GitBookFacts; version: number; secrets: Record<string, string> },
): GitBookIntegrationEnvironment {
  return {
    apiEndpoint: gitbookApiEndpoint(ctx),
    apiTokens: { integration: '' },
    integration: gitbookIntegration(ctx, input),
    signingSecrets: { integration: ctx.box.mac('gitbook-signing-secret', `integration:${input.name}`) },
    secrets: input.secrets,
  };
}

export interface GitBookEnvironmentInput {
  /** The installation the dispatch is for (organization, space or site). */
  installation: Row;
  /** Its organization installation (the installation itself at organization level), and that one's selections. */
  organization: Row;
  selections: Selections;
  manifest: Manifest;
  facts: GitBookFacts;
  version: number;
  token: string;
  secrets: Record<string, string>;
}

export function gitbookEnvironment(ctx: ServiceContext, input: GitBookEnvironmentInput): GitBookEnvironment {
  const { installation, organization, facts, token } = input;
  const name = installation.integration_name;
  const signingSecret = (what: string) => ctx.box.mac('gitbook-signing-secret', what);
  // (gitbookIntegrationEnvironment derives the integration's the same way.)
  const environment: GitBookEnvironment = {
    apiEndpoint: gitbookApiEndpoint(ctx),
    apiTokens: { installation: token, integration: token },
    integration: {
      ...gitbookIntegration(ctx, { name, manifest: input.manifest, facts, version: input.version }),
      // An installation's environment says what it may do: what its organization granted (DESIGN.md
      // "Granted scopes"), not what a newer version asks for and was not accepted yet.
      scopes: grantOf(organization.granted_scopes).filter((scope) => input.manifest.scopes.includes(scope as never)),
    },
    installation: gitbookInstallation(ctx, organization, input.selections),
    signingSecrets: {
      integration: signingSecret(`integration:${name}`),
      installation: signingSecret(`installation:${organization.id}`),
    },
    secrets: input.secrets,
  };
  if (installation.target_type === 'space') {
    environment.spaceInstallation = gitbookPlaceInstallation(ctx, installation) as GitBookSpaceInstallation;
    environment.signingSecrets.spaceInstallation = signingSecret(`installation:${installation.id}`);
  } else if (installation.target_type === 'site') {
    environment.siteInstallation = gitbookPlaceInstallation(ctx, installation) as GitBookSiteInstallation;
    environment.signingSecrets.siteInstallation = signingSecret(`installation:${installation.id}`);
  }
  return environment;
}

/** An organization installation in that runtime's shape (`installation`). */
export function gitbookInstallation(ctx: ServiceContext, row: Row, selections: Selections): GitBookInstallation {
  return {
    id: row.id,
    status: row.status,
    target: { organization: row.organization_id },
    configuration: JSON.parse(row.configuration),
    externalIds: [],
    ...selections,
    urls: { publicEndpoint: publicEndpointOf(ctx, row.id) },
  };
}

/** A space or site installation in that runtime's shape (`spaceInstallation`, `siteInstallation`). */
export function gitbookPlaceInstallation(
  ctx: ServiceContext,
  row: Row,
): GitBookSpaceInstallation | GitBookSiteInstallation {
  const place: PlaceInstallation = {
    integration: row.integration_name,
    installation: row.parent_id ?? '',
    status: row.status,
    configuration: JSON.parse(row.configuration),
    externalIds: [],
    urls: { publicEndpoint: publicEndpointOf(ctx, row.id) },
  };
  return row.target_type === 'site' ? { ...place, site: row.target_id } : { ...place, space: row.target_id };
}

/**
 * The environment of a request that came through the integration-wide public endpoint as an
 * installation's (the OAuth callback of a flow the dashboard started, calls/integration-public-endpoints.ts).
 * Those integrations route with a base taken from their environment, the installation's
 * `urls.publicEndpoint` first and the integration's when there is none (on that platform, such a
 * request has no installation). Here it does have one, so for this request the installation's
 * endpoints are the integration-wide one it came through: whichever base the integration takes,
 * it is the path it sees (`/v1/integrations/{name}/public/oauth` matches its `/oauth`).
 */
export function seenThroughIntegrationEndpoint<E>(event: PlatformEvent, environment: E): E {
  const gitbook = environment as unknown as Partial<GitBookEnvironment>;
  const through = gitbook.integration?.urls.publicEndpoint;
  if (event.type !== 'fetch' || through === undefined) return environment;
  const path = new URL(event.request.url).pathname;
  if (path !== new URL(through).pathname && !path.startsWith(`${new URL(through).pathname}/`)) return environment;
  const at = <T extends { urls: { publicEndpoint: string } }>(place: T | undefined) =>
    place === undefined ? undefined : { ...place, urls: { ...place.urls, publicEndpoint: through } };
  return {
    ...gitbook,
    ...(gitbook.installation ? { installation: at(gitbook.installation) } : {}),
    ...(gitbook.spaceInstallation ? { spaceInstallation: at(gitbook.spaceInstallation) } : {}),
    ...(gitbook.siteInstallation ? { siteInstallation: at(gitbook.siteInstallation) } : {}),
  } as E;
}
