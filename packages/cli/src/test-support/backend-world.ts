/**
 * A real platform on one of the platform tests' back ends (SQLite or PostgreSQL, `backends` of
 * platform/src/test-support), for one describe block: the organization `acme` with its space
 * `docs` and site `site`, its admin `ada`, and the API called with a token. The GitBook-dialect
 * fixtures written for the CLI's tests are in `gitbook/`.
 */
import { type RunningPlatform, startPlatform } from '@portico/platform';
import { afterAll, beforeAll } from 'vitest';
import type { Backend } from '../../../platform/src/test-support/backends.js';

export interface BackendWorld {
  platform: RunningPlatform;
  url: string;
  adminToken: string;
  adaToken: string;
  /** Calls the API with a token (default: the operator's); answers the parsed body, throws on a refusal. */
  api<T = any>(method: string, path: string, body?: unknown, token?: string): Promise<T>;
}

/** The directory of one of the GitBook-dialect fixtures (`gitbook/<name>`). */
export const gitbookFixture = (name: string) => new URL(`./gitbook/${name}`, import.meta.url).pathname;

/** A world for one describe block: started before its tests, closed after them. */
export function backendWorld(backend: Backend, options: { allowPrivateNetwork?: boolean } = {}): BackendWorld {
  let world: BackendWorld | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const fresh = await backend.fresh();
    cleanup = fresh.cleanup;
    const platform = await startPlatform({
      ...fresh.config,
      allowPrivateNetwork: options.allowPrivateNetwork ?? false,
    });
    const api = async <T>(method: string, path: string, body?: unknown, token = platform.adminToken): Promise<T> => {
      const response = await fetch(`${platform.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return (text ? JSON.parse(text) : undefined) as T;
    };
    world = { platform, url: platform.url, adminToken: platform.adminToken, adaToken: '', api };
    await api('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    await api('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' });
    await api('POST', '/v1/orgs/acme/sites', { id: 'site', title: 'Site' });
    world.adaToken = (await api<{ token: string }>('POST', '/v1/users', { id: 'ada', name: 'Ada' })).token;
    await api('PUT', '/v1/orgs/acme/members/ada', { role: 'admin' });
  }, 60_000);
  afterAll(async () => {
    await world?.platform.close();
    await cleanup?.();
  });
  return new Proxy({} as BackendWorld, {
    get(_, key) {
      if (world === undefined) throw new Error('the world is used before its beforeAll started it');
      return world[key as keyof BackendWorld];
    },
  });
}
