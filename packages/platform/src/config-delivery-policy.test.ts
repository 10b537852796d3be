/**
 * The server-wide default delivery policy (PORTICO_DELIVERY_POLICY): read and checked from the
 * environment, refused with a message naming the variable and the choices, and handed to the
 * pipeline on the service context.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, checkDeliveryPolicy, configFromEnv } from './config.js';
import { startPlatform } from './server.js';
import { backends } from './test-support/backends.js';

describe('PORTICO_DELIVERY_POLICY', () => {
  it('is unset by default, and read when it names a policy', () => {
    expect(configFromEnv({}).deliveryPolicy).toBeUndefined();
    expect(configFromEnv({ PORTICO_DELIVERY_POLICY: 'extended' }).deliveryPolicy).toBe('extended');
    expect(configFromEnv({ PORTICO_DELIVERY_POLICY: ' standard ' }).deliveryPolicy).toBe('standard');
  });

  it('refuses a name that is no policy, naming the variable and the choices', () => {
    expect(() => configFromEnv({ PORTICO_DELIVERY_POLICY: 'forever' })).toThrow(ConfigError);
    expect(() => configFromEnv({ PORTICO_DELIVERY_POLICY: 'forever' })).toThrow(
      /PORTICO_DELIVERY_POLICY must be one of standard, extended \(got "forever"\)/,
    );
    expect(() => checkDeliveryPolicy('Extended', '--delivery-policy')).toThrow(/--delivery-policy must be one of/);
  });

  it('reaches the service context of a running server', async () => {
    const sqlite = backends.find((b) => b.name === 'sqlite') as (typeof backends)[number];
    const { config, cleanup } = await sqlite.fresh();
    const platform = await startPlatform({ ...config, deliveryPolicy: 'extended' });
    try {
      expect(platform.ctx.defaultDeliveryPolicy).toBe('extended');
    } finally {
      await platform.close();
      await cleanup();
    }
  });
});
