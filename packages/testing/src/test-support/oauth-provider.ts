/**
 * A real OAuth 2.0 / OpenID Connect server (oidc-provider) on 127.0.0.1, and a scripted browser
 * that signs in and consents through its development login pages.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface ProviderClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface RunningProvider {
  url: string;
  /** Registers the clients and starts answering (the redirect URIs are known only once the platform runs). */
  start(clients: ProviderClient[]): void;
  close(): Promise<void>;
}

export async function listenOAuthProvider(): Promise<RunningProvider> {
  let handler:
    | ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void)
    | undefined;
  const server: Server = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end('not started');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    start(clients) {
      const provider = new Provider(url, {
        clients: clients.map((client) => ({
          ...client,
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
        })),
        pkce: { required: () => true },
        cookies: { keys: ['portico-test-cookie-key'] },
        features: { devInteractions: { enabled: true } },
      });
      provider.on('server_error', (_ctx: unknown, error: unknown) => console.error('oidc-provider:', error));
      handler = provider.callback();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Plays the user in a browser: follows redirects from `start`, signs in and consents on the
 * provider's pages (or cancels, with `deny`), and answers the first URL that leaves for
 * `returnTo` (the integration's callback). Bounded: at most 20 steps.
 */
export async function authorizeInBrowser(
  start: URL,
  returnTo: string,
  options: { deny?: boolean } = {},
): Promise<string> {
  const cookies = new Map<string, string>();
  let url = start.href;
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const eq = pair.indexOf('=');
      cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null) {
      const next = new URL(location, url).href;
      if (next.startsWith(returnTo)) return next;
      url = next;
      init = {};
      continue;
    }
    const html = await response.text();
    if (response.status !== 200)
      throw new Error(`the provider answered ${response.status} at ${url}: ${html.slice(0, 300)}`);
    if (options.deny) {
      const abort = /href="([^"]*\/abort)"/.exec(html)?.[1];
      if (abort === undefined) throw new Error(`no cancel link on the provider's page at ${url}`);
      url = new URL(abort, url).href;
      init = {};
      continue;
    }
    const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/.exec(html);
    if (form === null) throw new Error(`no form on the provider's page at ${url}: ${html.slice(0, 300)}`);
    const fields = new URLSearchParams();
    for (const input of (form[2] ?? '').matchAll(/<input[^>]*>/g)) {
      const name = /name="([^"]+)"/.exec(input[0])?.[1];
      if (name === undefined) continue;
      const value = /value="([^"]*)"/.exec(input[0])?.[1] ?? '';
      fields.set(name, name === 'login' ? 'ada' : name === 'password' ? 'lovelace' : value);
    }
    url = new URL(form[1] ?? url, url).href;
    init = {
      method: 'POST',
      body: fields.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    };
  }
  throw new Error('the authorization did not finish within 20 steps');
}
