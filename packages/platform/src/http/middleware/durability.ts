/** A request that wrote is answered once its writes are on disk (storage/durability.ts). */
import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { DomainError } from '../../errors/domain-error.js';
import type { ServiceContext } from '../../types.js';

export function durabilityGate(ctx: ServiceContext, logger: Logger | undefined): MiddlewareHandler {
  return async (_c, next) => {
    const mark = ctx.durability.mark();
    await next();
    try {
      await ctx.durability.after(mark);
    } catch (error) {
      logger?.error({ err: error }, 'could not sync the database log to disk');
      throw new DomainError(
        'unavailable',
        'not_durable',
        `the change was committed, but the database log could not be synced to disk (${(error as Error).message}); a power loss could undo it. Check the disk that holds the data directory, then read the change back before relying on it`,
      );
    }
  };
}
