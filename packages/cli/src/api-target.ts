/**
 * Which server a command talks to, and with which token: `--api URL` (with `--token T` or
 * PORTICO_TOKEN) reaches any server; without `--api`, the `portico dev` platform running for the
 * working directory (or one above it), with its admin token; without either, PORTICO_API and
 * PORTICO_TOKEN. The dev platform comes before the environment, so a PORTICO_API left set for
 * another server is never used by mistake while developing.
 */
import { ApiClient } from './api-client.js';
import { CommandError, usage } from './command-error.js';
import { type FoundDevServer, readDevServer } from './dev-server-file.js';
import type { Io } from './io.js';

export interface ServerOptions {
  api?: string;
  token?: string;
}

export interface Target {
  client: ApiClient;
  /** The `portico dev` platform when it is the one talked to: its space, site and installations. */
  dev?: FoundDevServer | undefined;
}

/** The flags every command that talks to a server has, for --help. */
export const SERVER_FLAGS = {
  api: 'the server, e.g. http://127.0.0.1:8787 (PORTICO_API; default: the portico dev platform of this directory)',
  token: 'the API token (PORTICO_TOKEN; default: the portico dev platform’s admin token)',
};

export function resolveTarget(options: ServerOptions, io: Io, env: NodeJS.ProcessEnv = process.env): Target {
  let dev: FoundDevServer | undefined;
  try {
    dev = readDevServer(io.cwd);
  } catch (error) {
    throw new CommandError((error as Error).message);
  }
  const devToken = (found: FoundDevServer) => {
    try {
      return found.adminToken();
    } catch (error) {
      throw new CommandError(
        `could not read the admin token of the portico dev platform (${found.adminTokenFile}): ${(error as Error).message}; pass --token`,
      );
    }
  };
  if (options.api !== undefined) {
    const api = checkedUrl(options.api, '--api');
    const same = dev !== undefined && sameServer(dev.api, api) ? dev : undefined;
    const token = options.token ?? env.PORTICO_TOKEN ?? (same ? devToken(same) : undefined);
    if (token === undefined || token === '') {
      throw usage(`give the API token for ${api} with --token TOKEN (or PORTICO_TOKEN)`);
    }
    return { client: new ApiClient(api, token), dev: same };
  }
  if (dev !== undefined) {
    const described = `the portico dev platform of ${dev.dir} (${dev.api})`;
    return { client: new ApiClient(dev.api.replace(/\/+$/, ''), options.token ?? devToken(dev), described), dev };
  }
  if (env.PORTICO_API) {
    const api = checkedUrl(env.PORTICO_API, 'PORTICO_API');
    const token = options.token ?? env.PORTICO_TOKEN;
    if (token === undefined || token === '') {
      throw usage(`give the API token for ${api} with --token TOKEN (or PORTICO_TOKEN)`);
    }
    return { client: new ApiClient(api, token) };
  }
  throw usage(
    'no server to talk to: run `portico dev` in this directory (the other commands find it), or pass --api URL --token TOKEN (or set PORTICO_API and PORTICO_TOKEN)',
  );
}

function checkedUrl(text: string, name: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {}
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw usage(`${name} "${text}" is not a server address: give its URL, e.g. http://127.0.0.1:8787`);
  }
  return text.replace(/\/+$/, '');
}

function sameServer(a: string, b: string): boolean {
  return new URL(a).origin === new URL(b).origin;
}
