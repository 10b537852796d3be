/**
 * Built-in integrations: published at start (by the operator, under the `portico` organization)
 * and run in this process as trusted code. For now: the webhook integration.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Integration } from '@portico/runtime';
import webhook from '@portico/webhook-integration';
import { publish } from './integrations/publish.js';
import { latestManifestSource } from './storage/repositories/integrations.js';
import { ensureOrganization } from './storage/repositories/organizations.js';
import type { ServiceContext } from './types.js';

export const BUILTIN_ORGANIZATION = 'portico';

export const BUILTINS: { name: string; integration: Integration; manifest: string }[] = [
  {
    name: 'webhook',
    integration: webhook,
    manifest: readFileSync(
      fileURLToPath(import.meta.resolve('@portico/webhook-integration/platform-manifest.yaml')),
      'utf8',
    ),
  },
];

/** Publishes each built-in (of `builtins`, default all) whose manifest changed since it was last published. */
export async function publishBuiltins(ctx: ServiceContext, builtins = BUILTINS): Promise<void> {
  await ensureOrganization(ctx.db, {
    id: BUILTIN_ORGANIZATION,
    title: 'Portico',
    subdomain: null,
    created_at: ctx.now(),
  });
  const latestManifest = (name: string) => latestManifestSource(ctx.db, name);
  for (const builtin of builtins) {
    if ((await latestManifest(builtin.name)) === builtin.manifest) continue;
    try {
      await publish(
        ctx,
        { kind: 'admin' },
        { manifest: builtin.manifest, script: `// ${builtin.name}: built in, runs in the platform process\n` },
      );
    } catch (error) {
      // Another node starting at the same moment may have published it first.
      if ((await latestManifest(builtin.name)) !== builtin.manifest) throw error;
    }
  }
}
