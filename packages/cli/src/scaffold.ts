import { stringify } from 'yaml';

export interface ScaffoldAnswers {
  name: string;
  title: string;
  description: string;
  organization: string;
}

/** A YAML scalar for `value`, quoted only when YAML needs it. */
const scalar = (value: string) => stringify(value, { lineWidth: 0 }).trimEnd();

export interface ScaffoldPackages {
  /** The dependency spec of a Portico package (`^0.1.0`, or a `file:` link or tarball). */
  spec(name: string): string;
  /** Where the Portico packages the direct ones depend on come from (tarballs). */
  overrides?: Record<string, string> | undefined;
  typescript: string;
  vitest: string;
}

/** Packages with install scripts the platform needs (npm asks for them in `allowScripts`). */
const INSTALL_SCRIPTS = { 'better-sqlite3': true, esbuild: true, workerd: true, sharp: true };

/** The files of a new integration, by path relative to its directory. */
export function scaffoldFiles(answers: ScaffoldAnswers, packages: ScaffoldPackages): Record<string, string> {
  const { name, title, description, organization } = answers;
  const linked = packages.spec('portico').startsWith('file:') && !packages.spec('portico').endsWith('.tgz');
  return {
    'platform-manifest.yaml': `# yaml-language-server: $schema=./node_modules/@portico/manifest/schema/platform-manifest.schema.json
# The manifest of the integration. Check it with \`npx portico check\`.
name: ${scalar(name)}
title: ${scalar(title)}
description: ${scalar(description)}
# The id or subdomain of the organization that owns the integration.
organization: ${scalar(organization)}
# private: only your organization can install it; unlisted: anyone with the share link; public: anyone.
visibility: private
# Permissions the integration needs, e.g. space:content:read to receive space_content_updated.
scopes: []
script: src/index.ts
# Settings your users fill in when they install the integration:
# configurations:
#   account:
#     properties:
#       greeting:
#         type: string
#         title: Greeting
#     required: [greeting]
`,
    'src/index.ts': `import { createIntegration } from '@portico/runtime';

export default createIntegration({
  // Requests to the installation's public endpoint (\`environment.integration.urls.publicEndpoint\`).
  // Answer quickly; do heavy work after the response with \`context.waitUntil()\`.
  async fetch(request) {
    if (request.method !== 'POST') return new Response('Method not allowed', { status: 405 });
    return Response.json({ received: true });
  },
  events: {
    // Sent when the integration is installed and each time its configuration is edited.
    async installation_setup(event, context) {
      console.log(\`\${event.type}: status \${JSON.stringify(context.environment.status)}\`);
    },
  },
});
`,
    'package.json': `${JSON.stringify(
      {
        name,
        version: '0.1.0',
        private: true,
        description,
        type: 'module',
        scripts: { check: 'portico check', dev: 'portico dev', test: 'vitest run', typecheck: 'tsc --noEmit' },
        dependencies: { '@portico/runtime': packages.spec('@portico/runtime') },
        devDependencies: {
          '@portico/manifest': packages.spec('@portico/manifest'),
          '@portico/testing': packages.spec('@portico/testing'),
          portico: packages.spec('portico'),
          typescript: `^${packages.typescript}`,
          vitest: `^${packages.vitest}`,
        },
        ...(packages.overrides && Object.keys(packages.overrides).length > 0 ? { overrides: packages.overrides } : {}),
        // Linked packages use the checkout's installed dependencies; otherwise npm installs the
        // platform's, and these build or fetch their native parts when installed.
        ...(linked ? {} : { allowScripts: INSTALL_SCRIPTS }),
      },
      null,
      2,
    )}\n`,
    'tsconfig.json': `${JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023', 'WebWorker'],
          module: 'ESNext',
          moduleResolution: 'Bundler',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        include: ['src'],
      },
      null,
      2,
    )}\n`,
    'src/index.test.ts': `import { loadManifest } from '@portico/manifest';
import { createTestPlatform, type TestPlatform } from '@portico/testing';
import { afterEach, describe, expect, it } from 'vitest';
import integration from './index.js';

// The manifest gives the test platform the integration's name, secrets and configuration schemas.
const loaded = await loadManifest(decodeURIComponent(new URL('..', import.meta.url).pathname));
if (!loaded.ok) throw new Error('platform-manifest.yaml is not valid: run npx portico check');
const manifest = loaded.manifest;

let platform: TestPlatform | undefined;
afterEach(async () => {
  await platform?.close();
  platform = undefined;
});

describe(${JSON.stringify(title)}, () => {
  it('answers a POST to its public endpoint', async () => {
    platform = await createTestPlatform(integration, { manifest });
    const response = await platform.fetch('/', { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
  });

  it('refuses other methods on its public endpoint', async () => {
    platform = await createTestPlatform(integration, { manifest });
    expect((await platform.fetch('/')).status).toBe(405);
  });

  it('handles installation_setup', async () => {
    platform = await createTestPlatform(integration, { manifest });
    const response = await platform.event({ type: 'installation_setup', status: 'active' });
    expect(response.ok).toBe(true);
  });
});
`,
    '.gitignore': 'node_modules/\ndist/\n.portico/\n.portico-dev/\n.env\n',
    'README.md': `# ${title}

${description}

A Portico integration: \`platform-manifest.yaml\` declares it, \`src/index.ts\` implements it.

\`\`\`sh
npm install
npx portico check     # validate platform-manifest.yaml and the files it names
npm test              # the tests in src/*.test.ts, against a simulated platform (@portico/testing)
npx portico dev       # run it on a local platform, reloaded on every save
\`\`\`

- \`src/index.ts\` answers requests to the installation's public endpoint (\`fetch\`) and platform events (\`events\`).
- Add UI components with \`createComponent()\` and list them under \`blocks\` in the manifest.
- Ask for permissions under \`scopes\` and for settings under \`configurations\`.
`,
  };
}

/** `my-integration` → `My Integration`. */
export function titleFromName(name: string): string {
  return name
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

/** A best guess at an integration name from a directory name: `My_Cool App` → `my-cool-app`. */
export function nameFromDirectory(base: string): string {
  return base
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+$/, '');
}
