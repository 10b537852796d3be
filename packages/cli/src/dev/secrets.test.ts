import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../manifest/src/test-support/temp-dir.js';
import { devSecrets } from './secrets.js';

const manifest = { secrets: { API_KEY: '${{ env.DEMO_API_KEY }}', OTHER: '${{ env.DEMO_OTHER }}' } };

describe('the secrets of portico dev', () => {
  it('come from the environment first, then from DIR/.env', async () => {
    const dir = await tempDir({ '.env': '# local values\nDEMO_API_KEY=from-file\nexport DEMO_OTHER="quoted value"\n' });
    expect(devSecrets(manifest, dir, {})).toEqual({
      ok: true,
      secrets: { DEMO_API_KEY: 'from-file', DEMO_OTHER: 'quoted value' },
    });
    expect(devSecrets(manifest, dir, { DEMO_API_KEY: 'from-env' })).toEqual({
      ok: true,
      secrets: { DEMO_API_KEY: 'from-env', DEMO_OTHER: 'quoted value' },
    });
  });

  it('name each one missing and how to set it', async () => {
    const dir = await tempDir({ '.env': 'DEMO_OTHER=\n' });
    expect(devSecrets(manifest, dir, {})).toEqual({
      ok: false,
      message: `the manifest's secrets need DEMO_API_KEY (for the secret \`API_KEY\`), DEMO_OTHER (for the secret \`OTHER\`), which are not set: add a line such as \`DEMO_API_KEY=…\` to ${join(dir, '.env')}, or set it in the environment (\`export DEMO_API_KEY=…\`)`,
    });
  });

  it('are not looked for when the manifest names none', async () => {
    expect(devSecrets({}, '/nonexistent', {})).toEqual({ ok: true, secrets: {} });
  });
});
