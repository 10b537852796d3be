/**
 * The values of the manifest's secrets (`${{ env.NAME }}`) for `portico dev`: from the
 * environment, else from the integration's `.env` file (the environment wins, as with dotenv).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { type Manifest, secretReferences } from '@portico/manifest';

export const ENV_FILE = '.env';

export type DevSecrets = { ok: true; secrets: Record<string, string> } | { ok: false; message: string };

export function devSecrets(manifest: Pick<Manifest, 'secrets'>, dir: string, env: NodeJS.ProcessEnv): DevSecrets {
  const references = secretReferences(manifest);
  if (references.length === 0) return { ok: true, secrets: {} };
  const file = readEnvFile(dir);
  const secrets: Record<string, string> = {};
  const missing: string[] = [];
  for (const { name, variable } of references) {
    const value = env[variable] || file[variable];
    if (value) secrets[variable] = value;
    else missing.push(`${variable} (for the secret \`${name}\`)`);
  }
  if (missing.length === 0) return { ok: true, secrets };
  const first = references.find((r) => !secrets[r.variable])?.variable ?? 'NAME';
  return {
    ok: false,
    message:
      `the manifest's secrets need ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not set: ` +
      `add a line such as \`${first}=…\` to ${join(dir, ENV_FILE)}, or set it in the environment (\`export ${first}=…\`)`,
  };
}

/** The variables of `DIR/.env` (none when there is no such file). */
function readEnvFile(dir: string): Record<string, string | undefined> {
  let text: string;
  try {
    text = readFileSync(join(dir, ENV_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  return parseEnv(text);
}
