import { stringify } from 'yaml';

export interface ScaffoldAnswers {
  name: string;
  title: string;
  description: string;
  organization: string;
}

/** A YAML scalar for `value`, quoted only when YAML needs it. */
const scalar = (value: string) => stringify(value, { lineWidth: 0 }).trimEnd();

/** The files of a new integration, by path relative to its directory. */
export function scaffoldFiles(
  answers: ScaffoldAnswers,
  versions: { portico: string; typescript: string },
): Record<string, string> {
  const { name, title, description, organization } = answers;
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
        scripts: { check: 'portico check', typecheck: 'tsc --noEmit' },
        dependencies: { '@portico/runtime': `^${versions.portico}` },
        devDependencies: {
          '@portico/manifest': `^${versions.portico}`,
          portico: `^${versions.portico}`,
          typescript: `^${versions.typescript}`,
        },
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
    '.gitignore': 'node_modules/\ndist/\n.portico/\n',
    'README.md': `# ${title}

${description}

A Portico integration: \`platform-manifest.yaml\` declares it, \`src/index.ts\` implements it.

\`\`\`sh
npm install
npx portico check     # validate platform-manifest.yaml and the files it names
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
