import { describe, expect, it } from 'vitest';
import { parseManifest } from './parse-manifest.js';
import { resolveSecrets, secretReferences } from './secrets.js';
import { BASE } from './test-support/manifests.js';

const manifest = (() => {
  const result = parseManifest(
    `${BASE}secrets:\n  CLIENT_ID: \${{ env.GH_CLIENT_ID }}\n  CLIENT_SECRET: \${{env.GH_CLIENT_SECRET}}\n  WEBHOOK_KEY: \${{ env.GH_WEBHOOK_KEY }}\n`,
  );
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.manifest;
})();

describe('secrets', () => {
  it('lists each secret with the variable it reads', () => {
    expect(secretReferences(manifest)).toEqual([
      { name: 'CLIENT_ID', variable: 'GH_CLIENT_ID' },
      { name: 'CLIENT_SECRET', variable: 'GH_CLIENT_SECRET' },
      { name: 'WEBHOOK_KEY', variable: 'GH_WEBHOOK_KEY' },
    ]);
  });

  it('resolves every secret from the environment', () => {
    const env = { GH_CLIENT_ID: 'id-1', GH_CLIENT_SECRET: 's3cret', GH_WEBHOOK_KEY: 'whk', OTHER: 'ignored' };
    expect(resolveSecrets(manifest, env)).toEqual({
      ok: true,
      secrets: { CLIENT_ID: 'id-1', CLIENT_SECRET: 's3cret', WEBHOOK_KEY: 'whk' },
    });
  });

  it('names every missing variable, and the secret it is for, in one message', () => {
    const result = resolveSecrets(manifest, { GH_CLIENT_SECRET: 's3cret', GH_WEBHOOK_KEY: '' });
    expect(result).toEqual({
      ok: false,
      missing: [
        { name: 'CLIENT_ID', variable: 'GH_CLIENT_ID' },
        { name: 'WEBHOOK_KEY', variable: 'GH_WEBHOOK_KEY' },
      ],
      message:
        'the environment variables are not set: GH_CLIENT_ID (for secret CLIENT_ID), GH_WEBHOOK_KEY (for secret WEBHOOK_KEY); set them before publishing',
    });
  });

  it('reads nothing from the environment but the referenced variables', () => {
    const read: string[] = [];
    const env = new Proxy(
      { GH_CLIENT_ID: 'a', GH_CLIENT_SECRET: 'b', GH_WEBHOOK_KEY: 'c', HOME: '/root' } as Record<string, string>,
      {
        get(target, key) {
          read.push(String(key));
          return target[String(key)];
        },
        getOwnPropertyDescriptor(target, key) {
          read.push(String(key));
          return Reflect.getOwnPropertyDescriptor(target, key);
        },
        ownKeys() {
          throw new Error('the environment must not be enumerated');
        },
      },
    );
    expect(resolveSecrets(manifest, env).ok).toBe(true);
    expect(new Set(read)).toEqual(new Set(['GH_CLIENT_ID', 'GH_CLIENT_SECRET', 'GH_WEBHOOK_KEY']));
  });

  it('does not take inherited properties for variables', () => {
    const result = resolveSecrets(manifest, Object.create({ GH_CLIENT_ID: 'x' }));
    expect(result.ok).toBe(false);
  });

  it('parsing a manifest never loads a referenced variable into it', () => {
    const original = process.env;
    const read: string[] = [];
    process.env = new Proxy(original, {
      get(target, key) {
        read.push(String(key));
        return Reflect.get(target, key);
      },
    });
    try {
      const result = parseManifest(`${BASE}secrets:\n  HOME_DIR: \${{ env.HOME }}\n`);
      expect(result.ok && result.manifest.secrets).toEqual({ HOME_DIR: '${{ env.HOME }}' });
    } finally {
      process.env = original;
    }
    expect(read).not.toContain('HOME');
  });

  it('a manifest without secrets resolves to none', () => {
    const result = parseManifest(BASE);
    expect(result.ok && resolveSecrets(result.manifest, {})).toEqual({ ok: true, secrets: {} });
  });
});
