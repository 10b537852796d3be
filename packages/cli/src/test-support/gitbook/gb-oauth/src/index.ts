/**
 * The OAuth integration of the GitBook-dialect tests, written for them in the shapes of that
 * runtime's wire format (it does not use `@gitbook/runtime`): `GET /v1` answers 500, the
 * envelope's `event` and `environment` are text form fields, and what it does not handle gets 406.
 *
 * - `/oauth` without a code (the Connect button opens it on the installation's public endpoint):
 *   sends the browser to the provider, with ONE redirect URL for the whole integration,
 *   `integration.urls.publicEndpoint + '/oauth'`, the installation's id as `state` and a PKCE
 *   challenge (its verifier an HMAC of the state with the installation's signing secret).
 * - `/oauth` with a code (the provider's redirect, on the integration-wide endpoint): exchanges it
 *   and stores the token in the installation's configuration (`oauth_credentials`), through
 *   `apiEndpoint` with `apiTokens.integration`, as that platform's integrations do.
 * - `/me`: asks the provider who the stored token belongs to.
 *
 * It routes as that platform's integrations do: paths are matched below a base taken from its
 * environment (the installation's public endpoint, else the integration's), and anything else is
 * "No route matching".
 */

interface Environment {
  apiEndpoint: string;
  apiTokens: { integration: string };
  integration: { name: string; urls: { publicEndpoint: string } };
  installation?: {
    id: string;
    configuration: { oauth_credentials?: { access_token?: string } };
    urls: { publicEndpoint: string };
  };
  signingSecrets: { installation?: string };
  secrets: { CLIENT_ID?: string; CLIENT_SECRET?: string; PROVIDER_URL?: string };
}

const text = (value: string) => new TextEncoder().encode(value);
const base64url = (bytes: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** The PKCE verifier of a flow: the same at the start and on the way back, stored nowhere. */
async function verifierOf(secret: string, state: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', text(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return base64url(await crypto.subtle.sign('HMAC', key, text(`pkce:${state}`)));
}

const page = (status: number, title: string) =>
  new Response(`<!doctype html><title>${title}</title><h1>${title}</h1>`, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8' },
  });

async function oauth(url: URL, environment: Environment): Promise<Response> {
  const { CLIENT_ID = '', CLIENT_SECRET = '', PROVIDER_URL = '' } = environment.secrets;
  const installation = environment.installation;
  const secret = environment.signingSecrets.installation;
  if (installation === undefined || secret === undefined) return page(400, 'Connect from the installation');
  const redirectUri = `${environment.integration.urls.publicEndpoint}/oauth`;
  const code = url.searchParams.get('code');
  if (code === null) {
    const state = installation.id;
    const challenge = base64url(await crypto.subtle.digest('SHA-256', text(await verifierOf(secret, state))));
    const authorize = new URL(`${PROVIDER_URL}/auth`);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: redirectUri,
      scope: 'openid',
      prompt: 'consent',
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }))
      authorize.searchParams.set(name, value);
    return Response.redirect(authorize.toString(), 302);
  }
  const state = url.searchParams.get('state') ?? '';
  if (state !== installation.id) return page(400, 'This sign-in was started for another installation');
  const exchanged = await fetch(`${PROVIDER_URL}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: await verifierOf(secret, state),
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    }),
  });
  if (!exchanged.ok) return page(502, `The provider refused the code: ${exchanged.status}`);
  const { access_token } = (await exchanged.json()) as { access_token: string };
  const stored = await fetch(
    `${environment.apiEndpoint}/v1/integrations/${environment.integration.name}/installations/${state}`,
    {
      method: 'PATCH',
      headers: { authorization: `Bearer ${environment.apiTokens.integration}`, 'content-type': 'application/json' },
      body: JSON.stringify({ configuration: { oauth_credentials: { access_token } } }),
    },
  );
  if (!stored.ok) return page(502, `The account could not be stored: ${stored.status}`);
  return page(200, 'Your provider account is connected');
}

/** Who the stored token belongs to, as the provider's userinfo endpoint says. */
async function me(environment: Environment): Promise<Response> {
  const token = environment.installation?.configuration.oauth_credentials?.access_token;
  if (token === undefined) return Response.json({ error: 'not connected' }, { status: 409 });
  const answer = await fetch(`${environment.secrets.PROVIDER_URL}/me`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!answer.ok) return Response.json({ error: `userinfo: ${answer.status}` }, { status: 502 });
  const { sub } = (await answer.json()) as { sub: string };
  return Response.json({ installation: environment.installation?.id, subject: sub });
}

export default {
  async fetch(request: Request): Promise<Response> {
    // That runtime has no route to describe the integration: the platform reads the manifest.
    if (request.method === 'GET') return new Response('no such route', { status: 500 });
    const form = await request.formData();
    const event = JSON.parse(form.get('event') as string) as { type: string; request?: { url: string } };
    const environment = JSON.parse(form.get('environment') as string) as Environment;
    if (event.type !== 'fetch' || event.request === undefined) {
      return Response.json({ error: `${event.type} is not handled` }, { status: 406 });
    }
    const url = new URL(event.request.url);
    const base = new URL(environment.installation?.urls.publicEndpoint ?? environment.integration.urls.publicEndpoint)
      .pathname;
    if (url.pathname === `${base}/oauth`) return oauth(url, environment);
    if (url.pathname === `${base}/me`) return me(environment);
    return page(404, `No route matching ${event.request.url}`);
  },
};
