/**
 * Built-in integrations: published at start (by the operator, under the `portico` organization)
 * and run in this process as trusted code. For now: the webhook integration.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Integration } from '@portico/runtime';
import webhook from '@portico/webhook-integration';
import type { ServiceContext } from './services/context.js';
import { publish } from './services/integrations.js';

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

/** Publishes each built-in whose manifest changed since it was last published. */
export async function publishBuiltins(ctx: ServiceContext): Promise<void> {
  await ctx.db
    .insertInto('organizations')
    .values({ id: BUILTIN_ORGANIZATION, title: 'Portico', subdomain: null, created_at: ctx.now() })
    .onConflict((oc) => oc.doNothing())
    .execute();
  for (const builtin of BUILTINS) {
    const latest = await ctx.db
      .selectFrom('integration_versions')
      .select('manifest_source')
      .where('integration_name', '=', builtin.name)
      .orderBy('version', 'desc')
      .executeTakeFirst();
    if (latest?.manifest_source === builtin.manifest) continue;
    try {
      await publish(
        ctx,
        { kind: 'admin' },
        { manifest: builtin.manifest, script: `// ${builtin.name}: built in, runs in the platform process\n` },
      );
    } catch (error) {
      // Another node starting at the same moment may have published it first.
      const now = await ctx.db
        .selectFrom('integration_versions')
        .select('manifest_source')
        .where('integration_name', '=', builtin.name)
        .orderBy('version', 'desc')
        .executeTakeFirst();
      if (now?.manifest_source !== builtin.manifest) throw error;
    }
  }
}
