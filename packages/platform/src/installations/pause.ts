/** Pausing and resuming an installation (DESIGN.md "Status"): a paused installation receives no events. */
import { undeclaredOf } from '../gitbook/dialect.js';
import { loadIntegration } from '../integrations/read.js';
import * as installations from '../storage/repositories/installations.js';
import type { InstallationStatus } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import { levelOf, validateConfiguration } from './configuration.js';
import { authorizedInstallation, lockedInstallation } from './load.js';
import { fullView, type InstallationView } from './views.js';

export async function setPaused(
  ctx: ServiceContext,
  principal: Principal,
  id: string,
  paused: boolean,
): Promise<InstallationView> {
  const current = await authorizedInstallation(
    ctx,
    principal,
    id,
    'admin',
    paused ? 'pausing an installation' : 'resuming an installation',
  );
  const { manifest, gitbook } = await loadIntegration(ctx, current.integration_name);
  return ctx.db
    .transaction()
    .execute(async (trx) => {
      const row = await lockedInstallation(ctx, trx, id);
      let status: InstallationStatus;
      if (paused) status = 'paused';
      else if (row.status !== 'paused') status = row.status;
      else {
        const errors = validateConfiguration(
          manifest,
          levelOf(row.target_type),
          JSON.parse(row.configuration),
          undeclaredOf(gitbook),
        );
        status = errors.length === 0 ? 'active' : 'pending';
      }
      if (status !== row.status) {
        const now = ctx.now();
        await installations.setStatus(trx, id, status, now);
        await installations.recordStatus(
          trx,
          id,
          row.status,
          status,
          paused ? `paused by ${who(principal)}` : `resumed by ${who(principal)}`,
          now,
        );
      }
      return { ...row, status };
    })
    .then((row) => fullView(ctx, row));
}

function who(principal: Principal): string {
  return principal.kind === 'user'
    ? principal.userId
    : principal.kind === 'admin'
      ? 'the operator'
      : principal.installationId;
}
