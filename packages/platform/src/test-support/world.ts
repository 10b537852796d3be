/**
 * A running platform with a small world in it: two organizations (acme with a space and a site;
 * globex), users ada (acme admin), bob (acme member), carol (globex admin), and dave (no
 * organization).
 */
import type { PlatformConfig } from '../config.js';
import { type RunningPlatform, type StartOptions, startPlatform } from '../server.js';
import { client } from './api.js';
import type { Backend } from './backends.js';

export interface World {
  platform: RunningPlatform;
  admin: ReturnType<typeof client>;
  anonymous: ReturnType<typeof client>;
  as(token: string): ReturnType<typeof client>;
  tokens: { ada: string; bob: string; carol: string; dave: string };
  close(): Promise<void>;
}

/** A manifest of the given name, owner and visibility, with one required site property and one account property. */
export function manifest(name: string, organization: string, visibility = 'private', extra = ''): string {
  return `name: ${name}
title: ${name}
description: A test integration
organization: ${organization}
visibility: ${visibility}
scopes: [space:content:read]
configurations:
  account:
    properties:
      url:
        type: string
      retries:
        type: number
        default: 3
    required: [url]
  site:
    properties:
      enabled:
        type: boolean
        default: true
${extra}`;
}

export async function startWorld(
  backend: Backend,
  settings: Partial<PlatformConfig> = {},
  options: StartOptions = {},
): Promise<World> {
  const { config, cleanup } = await backend.fresh();
  const platform = await startPlatform({ ...config, ...settings }, options);
  const admin = client(platform.url, platform.adminToken);
  const expect201 = async (p: Promise<{ status: number; body: any }>) => {
    const answer = await p;
    if (answer.status !== 201 && answer.status !== 200)
      throw new Error(`seeding failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  await expect201(admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme', subdomain: 'acme-docs' }));
  await expect201(admin('POST', '/v1/orgs', { id: 'globex', title: 'Globex' }));
  await expect201(admin('POST', '/v1/orgs/acme/spaces', { id: 'acme-space', title: 'Acme docs' }));
  await expect201(admin('POST', '/v1/orgs/acme/sites', { id: 'acme-site', title: 'Acme site' }));
  await expect201(admin('POST', '/v1/orgs/globex/spaces', { id: 'globex-space', title: 'Globex docs' }));
  const tokens = {} as World['tokens'];
  for (const id of ['ada', 'bob', 'carol', 'dave'] as const) {
    tokens[id] = (await expect201(admin('POST', '/v1/users', { id, name: id }))).token;
  }
  await expect201(admin('PUT', '/v1/orgs/acme/members/ada', { role: 'admin' }));
  await expect201(admin('PUT', '/v1/orgs/acme/members/bob', { role: 'member' }));
  await expect201(admin('PUT', '/v1/orgs/globex/members/carol', { role: 'admin' }));
  return {
    platform,
    admin,
    anonymous: client(platform.url),
    as: (token) => client(platform.url, token),
    tokens,
    async close() {
      await platform.close();
      await cleanup();
    },
  };
}
