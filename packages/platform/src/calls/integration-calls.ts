/**
 * Calls that reach an integration synchronously: a request to an installation's public endpoint
 * (spec 4.2) and a component render (spec 2.4). Both go through the dispatcher as envelopes.
 */
import { type ContentKitContext, type FetchEvent, isContentKitComplete, validateContentKit } from '@portico/runtime';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { DomainError } from '../errors/domain-error.js';
import { configurationProps } from '../gitbook/component-props.js';
import { integrationPublicPath } from '../gitbook/environment.js';
import { HOP_BY_HOP_HEADERS } from '../hosts/egress.js';
import { HostError, type HostResponse } from '../hosts/host.js';
import { authorizedInstallation, loadInstallation } from '../installations/load.js';
import { loadIntegration } from '../integrations/read.js';
import type { Principal, ServiceContext } from '../types.js';
import { flowCookie, oauthGate } from './oauth-starts.js';

/** A host's failure as the API's error (502, or 504 for a timeout). */
export function hostFailure(error: unknown): never {
  if (error instanceof HostError) {
    throw new DomainError(
      error.failure === 'timeout' ? 'integration_timeout' : 'integration_failed',
      `integration_${error.failure}`,
      error.message,
    );
  }
  throw error;
}

/**
 * What the platform's own cookies are named: the dashboard session and the OAuth flow. They never
 * reach integration code, and an integration cannot set them.
 */
const PLATFORM_COOKIE = /^(__Host-|__Secure-)?portico_/i;

/**
 * Pages of a public endpoint are served from the API's origin: a policy puts them in an origin of
 * their own, so their scripts cannot use a dashboard session (its cookie, its CSRF token).
 */
const PUBLIC_PAGE_POLICY =
  'sandbox allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation allow-downloads';

/**
 * Hands a request that reached `/v1/installations/{id}/public[/…]` to the integration's `fetch`.
 * A button's OAuth path admits only flows started from the dashboard (calls/oauth-starts.ts).
 */
export async function callPublicEndpoint(
  ctx: ServiceContext,
  dispatcher: Dispatcher,
  id: string,
  request: Request,
): Promise<Response> {
  const installation = await loadInstallation(ctx, id);
  if (installation.status === 'paused') {
    throw new DomainError(
      'unavailable',
      'installation_paused',
      `the installation ${id} is paused; an organization admin can resume it`,
    );
  }
  const { manifest, gitbook } = await loadIntegration(ctx, installation.integration_name);
  const gate = oauthGate(ctx, id, manifest, request);
  if (gate.kind === 'refused') return refusal(request, 403, gate.code, gate.message);
  const url = new URL(request.url);
  if (gate.kind === 'start') url.search = gate.search;
  const { event, body } = await fetchEventOf(ctx, request, url, id);
  const response = await dispatcher.send(installation, event, body).catch(hostFailure);
  const cookies: string[] = [];
  if (gate.kind === 'start') {
    cookies.push(gate.setCookie);
    // A GitBook-dialect OAuth handler has the provider send the browser back to its integration-wide
    // endpoint (calls/integration-public-endpoints.ts): the flow's cookie goes there too.
    if (gitbook !== undefined)
      cookies.push(flowCookie(gate.flow, integrationPublicPath(installation.integration_name), gate.secure));
  }
  return integrationAnswer(request, response, cookies);
}

/** The `fetch` event (and body) of a request to a public endpoint, without the platform's headers and cookies. */
export async function fetchEventOf(
  ctx: ServiceContext,
  request: Request,
  url: URL,
  installationId: string | undefined,
): Promise<{ event: FetchEvent; body: Uint8Array | undefined }> {
  const headers = [...request.headers].flatMap(([name, value]): [string, string][] => {
    const lower = name.toLowerCase();
    // The platform's own headers (X-Portico-Completion) come only from the platform.
    if (HOP_BY_HOP_HEADERS.has(lower) || lower.startsWith('x-portico-')) return [];
    if (lower !== 'cookie') return [[name, value]];
    const kept = value
      .split(';')
      .map((pair) => pair.trim())
      .filter((pair) => pair !== '' && !PLATFORM_COOKIE.test(pair.split('=')[0] ?? ''));
    return kept.length > 0 ? [[name, kept.join('; ')]] : [];
  });
  const event: FetchEvent = {
    type: 'fetch',
    eventId: `req_${Date.now().toString(36)}`,
    ...(installationId !== undefined ? { installationId } : {}),
    request: { method: request.method, url: `${ctx.publicUrl}${url.pathname}${url.search}`, headers },
  };
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  const body = hasBody ? new Uint8Array(await request.arrayBuffer()) : undefined;
  return { event, body };
}

/**
 * The integration's answer to a public request, as the platform hands it on: without hop-by-hop
 * headers or the platform's cookies, in an origin of its own, with the platform's `cookies` added.
 */
export function integrationAnswer(
  request: Request,
  response: Pick<HostResponse, 'status' | 'headers' | 'body'>,
  cookies: string[] = [],
): Response {
  const out = new Headers();
  for (const [name, value] of response.headers) {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP_HEADERS.has(lower)) continue;
    if (lower === 'set-cookie' && PLATFORM_COOKIE.test(value.split('=')[0]?.trim() ?? '')) continue;
    out.append(name, value);
  }
  out.append('content-security-policy', PUBLIC_PAGE_POLICY);
  for (const cookie of cookies) out.append('set-cookie', cookie);
  if (cookies.length > 0) out.set('cache-control', 'no-store');
  const empty = request.method === 'HEAD' || response.status === 204 || response.status === 304;
  return new Response(empty ? null : (response.body as Uint8Array<ArrayBuffer>), {
    status: response.status,
    headers: out,
  });
}

/** A refusal a person in a browser can read (a page), or the error JSON for everyone else. */
export function refusal(request: Request, status: number, code: string, message: string): Response {
  const headers = { 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'" };
  if (!(request.headers.get('accept') ?? '').includes('text/html')) {
    return Response.json({ error: { code, message } }, { status, headers });
  }
  const text = message.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>This connection cannot start here</title></head><body><h1>This connection cannot start here</h1><p>${text[0]?.toUpperCase()}${text.slice(1)}.</p></body></html>`;
  return new Response(html, { status, headers: { ...headers, 'content-type': 'text/html; charset=utf-8' } });
}

export interface RenderInput {
  props?: Record<string, unknown> | undefined;
  state?: Record<string, unknown> | undefined;
  action?: ({ action: string } & Record<string, unknown>) | undefined;
  /** For a block: false renders it as a reader of the page sees it (`context.editable`); default true. */
  editable?: boolean | undefined;
}

/**
 * Renders a component (ui_render) and checks what it answers: `{ element, state }` (the tree
 * validated), or `{ type: 'complete', returnValue }` when its action ended the interaction. The
 * event carries `context`: a block renders in a page (`document`), any other component in the
 * installation's configuration screen.
 */
export async function renderComponent(
  ctx: ServiceContext,
  dispatcher: Dispatcher,
  principal: Principal,
  id: string,
  componentId: string,
  input: RenderInput,
) {
  const installation = await authorizedInstallation(ctx, principal, id);
  if (installation.status === 'paused')
    throw new DomainError('unavailable', 'installation_paused', `the installation ${id} is paused`);
  const { manifest, gitbook } = await loadIntegration(ctx, installation.integration_name);
  const block = (manifest.blocks ?? []).some((b) => b.id === componentId);
  // A configuration screen written for GitBook's runtime reads its installations from its props.
  const given = input.props ?? {};
  const props =
    gitbook !== undefined && !block ? { ...given, ...(await configurationProps(ctx, installation)) } : given;
  const response = await dispatcher
    .send(installation, {
      type: 'ui_render',
      eventId: `render_${Date.now().toString(36)}`,
      installationId: id,
      componentId,
      props,
      ...(input.state !== undefined ? { state: input.state } : {}),
      ...(input.action !== undefined ? { action: input.action } : {}),
      context: renderContext(installation, block, input.editable ?? true),
    })
    .catch(hostFailure);
  const text = new TextDecoder().decode(response.body);
  let body: {
    type?: unknown;
    element?: unknown;
    state?: Record<string, unknown>;
    returnValue?: unknown;
    error?: string | { code?: string; message?: string };
  } = {};
  try {
    body = JSON.parse(text);
  } catch {
    throw new DomainError(
      'integration_failed',
      'integration_error',
      `the integration answered ${response.status} with a body that is not JSON`,
    );
  }
  if (response.status !== 200) {
    const kind = response.status === 404 ? 'not_found' : response.status === 400 ? 'invalid' : 'integration_failed';
    // Portico's SDK answers `{ error: { code, message } }`; GitBook's runtime `{ error: "…" }`.
    const error = typeof body.error === 'string' ? { message: body.error } : body.error;
    throw new DomainError(
      kind,
      error?.code ?? 'integration_error',
      error?.message ?? `the integration answered ${response.status}`,
    );
  }
  if (isContentKitComplete(body)) return { type: 'complete' as const, returnValue: body.returnValue ?? null };
  const problems = validateContentKit(body.element);
  if (problems.length > 0) {
    throw new DomainError(
      'integration_failed',
      'invalid_contentkit',
      `the component "${componentId}" rendered an invalid tree: ${problems.map((p) => `${p.path || '(root)'}: ${p.message}`).join('; ')}`,
    );
  }
  return { element: body.element, state: body.state ?? {} };
}

/** Where a component renders, as its `ui_render` event says. */
function renderContext(
  installation: { organization_id: string; target_type: 'organization' | 'space' | 'site'; target_id: string },
  block: boolean,
  editable: boolean,
): ContentKitContext {
  const { target_type: target, target_id: place } = installation;
  return {
    type: block ? 'document' : target === 'organization' ? 'configuration_account' : `configuration_${target}`,
    organizationId: installation.organization_id,
    ...(target === 'space' ? { spaceId: place } : target === 'site' ? { siteId: place } : {}),
    ...(block ? { editable } : {}),
    theme: 'light',
  };
}

/** Warnings about a published version: blocks whose component the script does not define. */
export async function publishWarnings(dispatcher: Dispatcher, name: string, version: number): Promise<string[]> {
  const bundle = await dispatcher.bundle(name, version);
  const blocks = bundle.manifest.blocks ?? [];
  if (blocks.length === 0) return [];
  const descriptor = await dispatcher.describe(bundle);
  if (descriptor === undefined) return ['the script could not be started to check that each block has its component'];
  return blocks
    .filter((block) => !descriptor.components.includes(block.id))
    .map(
      (block) =>
        `the block "${block.id}" has no component: the script defines ${descriptor.components.length ? descriptor.components.map((c) => `"${c}"`).join(', ') : 'none'}; add createComponent({ componentId: "${block.id}", … }) or remove the block`,
    );
}

/**
 * The components of the integration's latest version: those its script defines (learned once per
 * version), the blocks its manifest registers, and for a GitBook-dialect version the components its
 * manifest names for a configuration (`configurations.<level>.componentId`: that runtime cannot
 * list its components), each marked as a block (quick insert menu) or not (configuration screen).
 * A configuration component says its level (`account`: the organization installation's screen;
 * `site`: those of space and site installations), unless it is named for both.
 */
export async function integrationComponents(dispatcher: Dispatcher, name: string) {
  const bundle = await dispatcher.bundle(name);
  const blocks = bundle.manifest.blocks ?? [];
  const defined = (await dispatcher.describe(bundle))?.components ?? [];
  const levels = Object.entries(bundle.gitbook?.configurationComponents ?? {}) as ['account' | 'site', string][];
  const ids = [...new Set([...defined, ...blocks.map((b) => b.id), ...levels.map(([, id]) => id)])];
  return ids.map((id) => {
    const block = blocks.find((b) => b.id === id);
    if (block) return { id, title: block.title, description: block.description, block: true };
    const named = levels.filter(([, component]) => component === id);
    return named.length === 1
      ? { id, title: id, block: false, configurationLevel: named[0]?.[0] }
      : { id, title: id, block: false };
  });
}
