/**
 * OAuth start links (decision 017). A `button` property's `callback_url` (e.g. `/oauth`) is a path
 * of the installation's public endpoint, where the integration's OAuth handler begins a flow that
 * stores an external account's credentials into the installation. Anyone who knows the public URL
 * could open it, so the platform lets a flow begin there only through a start link: made by
 * `POST /v1/installations/{id}/oauth/start` for a signed-in member (the dashboard's Connect button),
 * signed with the platform's key, bound to the installation, the property and, when asked for with
 * a session cookie, that session; valid for five minutes. Opening it sets a short-lived
 * `SameSite=Lax` cookie on the installation's public path, which the provider's redirect back
 * (a top-level GET from another site) carries: the callback reaches the integration only with it.
 */
import { randomBytes } from 'node:crypto';
import { didYouMean, type Manifest } from '@portico/manifest';
import { hashToken } from '../access/tokens.js';
import { DomainError, forbidden, invalid } from '../errors/domain-error.js';
import { levelOf } from '../installations/configuration.js';
import { managedInstallation } from '../installations/load.js';
import { publicEndpointOf } from '../installations/views.js';
import { loadIntegration } from '../integrations/read.js';
import type { Principal, ServiceContext } from '../types.js';

/** The query parameter of a start link (removed before the request reaches the integration). */
export const OAUTH_START_PARAM = 'portico_oauth_start';
/** The cookie that lets the provider's redirect back reach the integration. */
export const OAUTH_FLOW_COOKIE = 'portico_oauth';
/** How long a start link works. */
export const START_LINK_TTL_MS = 5 * 60 * 1000;
/** How long a started flow may take at the provider. */
export const FLOW_TTL_MS = 10 * 60 * 1000;

interface Signed {
  /** The installation. */
  i: string;
  /** The button property. */
  p: string;
  /** The SHA-256 of the session cookie that asked for it (null: asked for with a bearer token). */
  s: string | null;
  /** Expiry, Unix ms. */
  e: number;
  n: string;
}

function sign(ctx: ServiceContext, purpose: string, payload: Signed): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${ctx.box.mac(purpose, body)}`;
}

function opened(ctx: ServiceContext, purpose: string, token: string | undefined | null): Signed | undefined {
  const [body, mac, extra] = (token ?? '').split('.');
  if (!body || !mac || extra !== undefined || !ctx.box.verifyMac(purpose, body, mac)) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Signed;
    return typeof payload.e === 'number' && payload.e > ctx.now() ? payload : undefined;
  } catch {
    return undefined;
  }
}

/** The button properties of a manifest, at one level or at both, with the path each one's flow runs on. */
function buttons(manifest: Manifest, levels: ('account' | 'site')[]) {
  return levels.flatMap((level) =>
    Object.entries(manifest.configurations?.[level]?.properties ?? {}).flatMap(([name, property]) =>
      property.type === 'button' ? [{ name, level, callbackUrl: property.callback_url }] : [],
    ),
  );
}

/** A path as compared here: decoded, lowercase, without trailing slashes. */
function normalPath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {}
  return decoded.toLowerCase().replace(/\/+$/, '');
}

/** The path of a `callback_url` (which may carry a query of its own). */
const callbackPath = (callbackUrl: string) => new URL(callbackUrl, 'http://portico.invalid').pathname;

/**
 * Makes the start link of an installation's button property (the only button of its level when
 * `property` is not given), for a member of its organization.
 */
export async function startOAuth(
  ctx: ServiceContext,
  principal: Principal,
  id: string,
  property: string | undefined,
  sessionCookie: string | undefined,
): Promise<{ url: string; property: string; expiresAt: string }> {
  if (principal.kind === 'installation') {
    throw forbidden('an OAuth connection is started by a person: sign in and press Connect');
  }
  const row = await managedInstallation(ctx, principal, id, 'connecting an account');
  if (row.status === 'paused') {
    throw new DomainError(
      'conflict',
      'installation_paused',
      `the installation ${id} is paused: resume it, then connect`,
    );
  }
  const { manifest } = await loadIntegration(ctx, row.integration_name);
  const level = levelOf(row.target_type);
  const candidates = buttons(manifest, [level]);
  const names = candidates.map((b) => `\`${b.name}\``).join(', ');
  let button = candidates[0];
  if (property === undefined) {
    if (candidates.length === 0) {
      throw invalid(
        'no_oauth_button',
        `the ${level} configuration of ${row.integration_name} has no button property: there is nothing to connect`,
      );
    }
    if (candidates.length > 1) {
      throw invalid('property_required', `name the button to connect in \`property\`: one of ${names}`);
    }
  } else {
    button = candidates.find((b) => b.name === property);
    if (button === undefined) {
      const declared = manifest.configurations?.[level]?.properties?.[property];
      throw invalid(
        declared ? 'not_a_button' : 'unknown_property',
        declared
          ? `\`${property}\` is a ${declared.type} property, not a button; ${candidates.length ? `the buttons are ${names}` : 'this configuration has no button'}`
          : `\`${property}\` is not a property of this integration's ${level} configuration${didYouMean(
              property,
              candidates.map((b) => b.name),
            )}; ${candidates.length ? `its buttons are ${names}` : 'it has no button'}`,
      );
    }
  }
  if (button === undefined) throw new Error('unreachable: a button was chosen');
  const expires = ctx.now() + START_LINK_TTL_MS;
  const token = sign(ctx, 'oauth-start', {
    i: id,
    p: button.name,
    s: sessionCookie === undefined ? null : hashToken(sessionCookie),
    e: expires,
    n: randomBytes(12).toString('base64url'),
  });
  const callback = new URL(button.callbackUrl, 'http://portico.invalid');
  const url = new URL(`${publicEndpointOf(ctx, id)}${callback.pathname.replace(/^\/+/, '/')}`);
  url.search = callback.search;
  url.searchParams.set(OAUTH_START_PARAM, token);
  return { url: url.toString(), property: button.name, expiresAt: new Date(expires).toISOString() };
}

/** What the public endpoint does with a request, as far as OAuth is concerned. */
export type OAuthGate =
  /** Not a path where a flow runs: handed on as it is. */
  | { kind: 'open' }
  /**
   * A valid start link: handed on without its parameter; the answer sets the flow's cookie
   * (`setCookie`; `flowCookie` makes the same cookie for another path).
   */
  | { kind: 'start'; search: string; setCookie: string; flow: string; secure: boolean }
  /** The provider's redirect back (or another step) of a flow this browser started. */
  | { kind: 'flow' }
  /** Refused: a flow not started from the dashboard. */
  | { kind: 'refused'; code: string; message: string };

/**
 * Decides whether a request to an installation's public endpoint may reach the integration: on a
 * button's path (the `callback_url`, or a path ending with it) only with a valid start link or the
 * cookie of a flow started with one.
 */
export function oauthGate(
  ctx: ServiceContext,
  installationId: string,
  manifest: Manifest,
  request: Request,
): OAuthGate {
  const url = new URL(request.url);
  const prefix = `/v1/installations/${installationId}/public`;
  const rest = normalPath(url.pathname.slice(prefix.length));
  const guarded = buttons(manifest, ['account', 'site']).filter((b) => {
    const path = normalPath(callbackPath(b.callbackUrl));
    return rest === path || rest.endsWith(path);
  });
  if (guarded.length === 0) return { kind: 'open' };
  const again = 'open the installation in the Portico dashboard and press Connect';
  const link = url.searchParams.get(OAUTH_START_PARAM);
  if (link !== null) {
    const start = opened(ctx, 'oauth-start', link);
    if (start === undefined || start.i !== installationId || !guarded.some((b) => b.name === start.p)) {
      return {
        kind: 'refused',
        code: 'oauth_start_refused',
        message: `this Connect link is not valid (it works once pressed, for 5 minutes, for its own installation): ${again}`,
      };
    }
    const session = cookieOf(request, 'portico_session');
    if (start.s !== null && (session === undefined || hashToken(session) !== start.s)) {
      return {
        kind: 'refused',
        code: 'oauth_start_refused',
        message: `this Connect link belongs to another browser session: ${again} in this browser`,
      };
    }
    url.searchParams.delete(OAUTH_START_PARAM);
    const flow = sign(ctx, 'oauth-flow', { ...start, s: null, e: ctx.now() + FLOW_TTL_MS });
    const secure = url.protocol === 'https:' || ctx.publicUrl.startsWith('https:');
    return { kind: 'start', search: url.search, setCookie: flowCookie(flow, prefix, secure), flow, secure };
  }
  const flow = opened(ctx, 'oauth-flow', cookieOf(request, OAUTH_FLOW_COOKIE));
  if (flow !== undefined && flow.i === installationId) return { kind: 'flow' };
  return {
    kind: 'refused',
    code: 'oauth_not_started',
    message: `an OAuth connection of this installation starts only from the dashboard (so nobody else can connect their account to it): ${again}`,
  };
}

/** The cookie of a started flow, for the public path it is sent back to. */
export function flowCookie(flow: string, path: string, secure: boolean): string {
  return `${OAUTH_FLOW_COOKIE}=${flow}; Max-Age=${FLOW_TTL_MS / 1000}; Path=${path}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/**
 * The integration-wide public endpoint of a GitBook-dialect integration
 * (`/v1/integrations/{name}/public[/…]`, calls/integration-public-endpoints.ts): where its OAuth
 * handler registers its one redirect URL. A start link opened on an installation's public
 * endpoint also sets the flow's cookie on that path, so the provider's redirect back there carries
 * it. Answers the installation whose flow the request's cookie carries (undefined: none, or not
 * valid), whether the request is on a button's path, and the refusal for such a path without one.
 */
export function integrationOAuthGate(
  ctx: ServiceContext,
  prefix: string,
  manifest: Manifest,
  request: Request,
): { installationId: string | undefined; guarded: boolean; refusal: { code: string; message: string } } {
  const url = new URL(request.url);
  const rest = normalPath(url.pathname.slice(prefix.length));
  const guarded = buttons(manifest, ['account', 'site']).some((b) => {
    const path = normalPath(callbackPath(b.callbackUrl));
    return rest === path || rest.endsWith(path);
  });
  const flow = opened(ctx, 'oauth-flow', cookieOf(request, OAUTH_FLOW_COOKIE));
  return {
    installationId: flow?.i,
    guarded,
    refusal: {
      code: 'oauth_not_started',
      message:
        'an OAuth connection of this integration reaches it here only in the browser that started it from the dashboard (so nobody else can connect their account to an installation): open the installation in the Portico dashboard and press Connect',
    },
  };
}

/** One cookie of a request. */
export function cookieOf(request: Request, name: string): string | undefined {
  for (const pair of (request.headers.get('cookie') ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}
