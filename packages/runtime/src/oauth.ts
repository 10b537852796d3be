/**
 * `createOAuthHandler()` (spec 2.5, 5.1): an OAuth 2.0 authorization-code flow as a fetch handler
 * to mount at the public endpoint's `/oauth`. The first request redirects to the provider with a
 * signed, expiring `state` and a PKCE (S256) challenge; the callback checks `state`, exchanges the
 * code, turns the answer into configuration with `extractCredentials`, and stores it through the
 * platform API. Every failure is a readable page, never a stack trace.
 *
 * Nothing is kept between the two requests: `state` carries the installation id, a nonce and an
 * expiry, signed with the installation's key (HMAC-SHA256), and the PKCE verifier is derived from
 * the nonce with the same key, so only this installation can complete the flow it started.
 */
import { decodeBase64Url, encodeBase64Url } from './base64url.js';
import { ExposableError } from './errors.js';
import type { Configuration, Context, FetchHandler } from './types.js';

export interface OAuthTokenResponse {
  /** True when the provider answered 2xx with an access token and no error. */
  ok: boolean;
  /** The HTTP status of the token endpoint's answer (0 when it could not be reached). */
  status: number;
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
  token_type?: string;
  scope?: string;
  error?: string;
  error_description?: string;
  [field: string]: unknown;
}

export interface OAuthCredentials {
  /** Configuration properties to set, e.g. `{ oauth_credentials: { access_token } }`. */
  configuration: Configuration;
}

export interface OAuthConfig {
  clientId: string;
  clientSecret: string;
  authorizeURL: string;
  accessTokenURL: string;
  /** Where the provider sends the user back (default: the public endpoint followed by `/oauth`). */
  redirectURL?: string;
  scopes?: string[];
  prompt?: string;
  /** Turns the token response into configuration; must throw when `response.ok` is false (spec 7.2). */
  extractCredentials?: (response: OAuthTokenResponse) => OAuthCredentials | Promise<OAuthCredentials>;
  /** How the client authenticates at the token endpoint (default `client_secret_post`). */
  tokenAuthMethod?: 'client_secret_post' | 'client_secret_basic';
  /** How long a started flow may take, in seconds (default 600). */
  stateTtlSeconds?: number;
}

/** The provider did not issue a token. Its message is shown to the user. */
export class OAuthError extends ExposableError {
  constructor(message: string) {
    super(message, 502, 'oauth_failed');
    this.name = 'OAuthError';
  }
}

const encoder = new TextEncoder();

/** The default `extractCredentials`: `{ oauth_credentials: { access_token, refresh_token?, expires_at? } }`. */
export function defaultExtractCredentials(response: OAuthTokenResponse): OAuthCredentials {
  if (!response.ok || typeof response.access_token !== 'string') {
    const reason = response.error ?? (response.status === 0 ? 'unreachable' : `HTTP ${response.status}`);
    const detail = response.error_description ? ` (${response.error_description})` : '';
    throw new OAuthError(`the provider did not issue an access token: ${reason}${detail}`);
  }
  const credentials: Record<string, unknown> = { access_token: response.access_token };
  if (typeof response.refresh_token === 'string') credentials.refresh_token = response.refresh_token;
  if (typeof response.expires_in === 'number' && Number.isFinite(response.expires_in)) {
    credentials.expires_at = new Date(Date.now() + response.expires_in * 1000).toISOString();
  }
  return { configuration: { oauth_credentials: credentials } };
}

export function createOAuthHandler(config: OAuthConfig | ((context: Context) => OAuthConfig)): FetchHandler {
  return async (request, context) => {
    const options = typeof config === 'function' ? config(context) : config;
    const missing = (['clientId', 'clientSecret', 'authorizeURL', 'accessTokenURL'] as const).filter(
      (key) => typeof options[key] !== 'string' || options[key] === '',
    );
    if (missing.length > 0) {
      return page(500, 'This connection is not set up', `The integration's OAuth settings lack ${missing.join(', ')}.`);
    }
    const key = context.environment.installationKey;
    if (typeof key !== 'string' || key === '') {
      return page(500, 'This connection is not set up', 'The platform did not provide an installation key.');
    }
    if (request.method !== 'GET') return page(405, 'Method not allowed', 'Open this address in a browser.');

    const params = new URL(request.url).searchParams;
    const redirectUri =
      options.redirectURL ?? `${context.environment.integration.urls.publicEndpoint.replace(/\/+$/, '')}/oauth`;

    const providerError = params.get('error');
    if (providerError !== null) {
      const description = params.get('error_description');
      return page(
        400,
        'The connection was not made',
        `The provider answered “${providerError}”${description ? `: ${description}` : ''}. Close this window and try again.`,
      );
    }

    const code = params.get('code');
    if (code === null) {
      const nonce = encodeBase64Url(crypto.getRandomValues(new Uint8Array(16)));
      const expires = Math.floor(Date.now() / 1000) + (options.stateTtlSeconds ?? 600);
      const state = await signState(key, { i: context.environment.id, n: nonce, e: expires });
      const verifier = await pkceVerifier(key, nonce);
      const challenge = encodeBase64Url(await crypto.subtle.digest('SHA-256', encoder.encode(verifier)));
      const target = new URL(options.authorizeURL);
      target.searchParams.set('response_type', 'code');
      target.searchParams.set('client_id', options.clientId);
      target.searchParams.set('redirect_uri', redirectUri);
      if (options.scopes?.length) target.searchParams.set('scope', options.scopes.join(' '));
      if (options.prompt) target.searchParams.set('prompt', options.prompt);
      target.searchParams.set('state', state);
      target.searchParams.set('code_challenge', challenge);
      target.searchParams.set('code_challenge_method', 'S256');
      return new Response(null, { status: 302, headers: { location: target.toString(), 'cache-control': 'no-store' } });
    }

    const checked = await verifyState(key, params.get('state'), context.environment.id);
    if (!checked.ok) {
      return page(
        400,
        'This sign-in link cannot be used',
        `${checked.reason} Start the connection again from the integration's settings.`,
      );
    }
    const response = await exchangeCode(options, code, redirectUri, await pkceVerifier(key, checked.nonce));
    let credentials: OAuthCredentials;
    try {
      credentials = await (options.extractCredentials ?? defaultExtractCredentials)(response);
    } catch (error) {
      if (!(error instanceof ExposableError)) console.error('portico: extractCredentials failed:', error);
      const message = error instanceof ExposableError ? error.message : 'the answer of the provider could not be used';
      return page(502, 'The connection was not made', `${capitalize(message)}. Close this window and try again.`);
    }
    if (typeof credentials?.configuration !== 'object' || credentials.configuration === null) {
      console.error('portico: extractCredentials must return { configuration }, got', credentials);
      return page(500, 'The connection was not made', 'The integration could not read the answer of the provider.');
    }
    try {
      await context.api.updateConfiguration(credentials.configuration);
    } catch (error) {
      console.error('portico: storing the OAuth credentials failed:', error);
      return page(502, 'The connection was not saved', 'The platform did not accept the credentials. Try again later.');
    }
    return page(200, 'Connected', 'The connection is set up. You can close this window.');
  };
}

async function exchangeCode(
  options: OAuthConfig,
  code: string,
  redirectUri: string,
  verifier: string,
): Promise<OAuthTokenResponse> {
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/x-www-form-urlencoded',
  };
  if (options.tokenAuthMethod === 'client_secret_basic') {
    headers.authorization = `Basic ${btoa(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`)}`;
  } else {
    form.set('client_id', options.clientId);
    form.set('client_secret', options.clientSecret);
  }
  let response: Response;
  try {
    response = await fetch(options.accessTokenURL, { method: 'POST', headers, body: form, redirect: 'manual' });
  } catch (error) {
    return {
      ok: false,
      status: 0,
      error: 'unreachable',
      error_description: error instanceof Error ? error.message : String(error),
    };
  }
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) body = parsed;
  } catch {
    body = Object.fromEntries(new URLSearchParams(text));
  }
  if (typeof body.expires_in === 'string' && /^\d+$/.test(body.expires_in)) body.expires_in = Number(body.expires_in);
  const ok = response.ok && typeof body.access_token === 'string' && body.error === undefined;
  return { ...body, ok, status: response.status };
}

interface StatePayload {
  /** The installation that started the flow. */
  i: string;
  /** A random nonce; the PKCE verifier is derived from it. */
  n: string;
  /** Expiry, Unix seconds. */
  e: number;
}

async function hmac(key: string, purpose: string, data: string): Promise<ArrayBuffer> {
  const cryptoKey = await crypto.subtle.importKey(
    'raw',
    encoder.encode(key),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return crypto.subtle.sign('HMAC', cryptoKey, encoder.encode(`${purpose}.${data}`));
}

async function signState(key: string, payload: StatePayload): Promise<string> {
  const body = encodeBase64Url(encoder.encode(JSON.stringify(payload)));
  return `${body}.${encodeBase64Url(await hmac(key, 'oauth-state', body))}`;
}

async function verifyState(
  key: string,
  state: string | null,
  installationId: string,
): Promise<{ ok: true; nonce: string } | { ok: false; reason: string }> {
  const invalid = { ok: false as const, reason: 'The sign-in link is not valid.' };
  if (state === null) return { ok: false, reason: 'The provider sent no state.' };
  const [body, signature, extra] = state.split('.');
  if (body === undefined || signature === undefined || extra !== undefined) return invalid;
  const given = decodeBase64Url(signature);
  if (given === undefined) return invalid;
  const cryptoKey = await crypto.subtle.importKey(
    'raw',
    encoder.encode(key),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  const valid = await crypto.subtle.verify('HMAC', cryptoKey, given, encoder.encode(`oauth-state.${body}`));
  if (!valid) return invalid;
  let payload: StatePayload;
  try {
    payload = JSON.parse(new TextDecoder().decode(decodeBase64Url(body)));
  } catch {
    return invalid;
  }
  if (payload.i !== installationId) return { ok: false, reason: 'The sign-in link belongs to another installation.' };
  if (!(payload.e >= Math.floor(Date.now() / 1000))) return { ok: false, reason: 'The sign-in link has expired.' };
  return { ok: true, nonce: payload.n };
}

async function pkceVerifier(key: string, nonce: string): Promise<string> {
  return encodeBase64Url(await hmac(key, 'pkce', nonce));
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** A small, self-contained HTML page for the person in the browser. */
function page(status: number, title: string, message: string): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:15vh auto;padding:0 1rem;color:#1f2328}h1{font-size:1.4rem}</style>
</head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>
`;
  return new Response(html, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
  });
}
