/** Publishing integrations, the directory, and an integration's page. */
import { z } from '@hono/zod-openapi';
import { JsonSchema } from './common.js';

const GITBOOK_HOW = 'as `portico publish` sends it from a gitbook-manifest.yaml';

export const GitBookFacts = z
  .strictObject({
    target: z.enum(['all', 'organization', 'space', 'site'], {
      error: `must be one of all, organization, space, site (the manifest's \`target\`, ${GITBOOK_HOW})`,
    }),
    contentSecurityPolicy: z
      .union([z.string(), z.record(z.string(), z.string())], {
        error: 'must be a policy as text, or a mapping of directives to their sources as text',
      })
      .optional(),
    configurationComponents: z.strictObject({
      account: z.string().min(1, { error: 'must be the id of a component' }).optional(),
      site: z.string().min(1, { error: 'must be the id of a component' }).optional(),
    }),
    blocks: z.record(
      z.string(),
      z.strictObject({
        urlUnfurl: z.array(z.string().min(1, { error: 'must be a URL pattern' })).optional(),
        markdown: z.strictObject({ codeblock: z.string(), body: z.string() }).optional(),
      }),
    ),
  })
  .openapi('GitBookFacts', {
    description:
      'What a gitbook-manifest.yaml states beyond Portico’s manifest (decision 030). Present only for an integration written for GitBook’s runtime: its dispatches then carry that runtime’s environment shapes',
  });

export const PublishInput = z
  .strictObject({
    manifest: z.string().min(1).openapi({ description: 'The text of platform-manifest.yaml' }),
    script: z.string().openapi({ description: 'The entry script, bundled into one ES module' }),
    secrets: z.record(z.string(), z.string()).optional().openapi({
      description: 'Values of the environment variables the manifest secrets reference (`${{ env.NAME }}`)',
    }),
    assets: z.record(z.string(), z.string()).optional().openapi({
      description:
        "The files the manifest's `icon` and `previewImages` name, by the path it gives them, each in base64 (at most 2 MiB)",
    }),
    gitbook: GitBookFacts.optional(),
  })
  .openapi('PublishInput');

export const Published = z
  .object({
    name: z.string(),
    version: z.number(),
    visibility: z.string(),
    organization: z.string(),
    shareToken: z.string(),
  })
  .openapi('Published');

export const Integration = z
  .object({
    name: z.string(),
    organization: z.string(),
    visibility: z.string(),
    version: z.number(),
    title: z.string(),
    description: z.string(),
    scopes: z.array(z.string()),
    secretNames: z.array(z.string()),
  })
  .catchall(z.unknown())
  .openapi('Integration');

export const Block = z
  .object({ id: z.string(), title: z.string(), description: z.string() })
  .openapi('Block', { description: 'A component registered in the quick insert menu' });

export const DirectoryEntry = z
  .object({
    name: z.string(),
    title: z.string(),
    description: z.string(),
    icon: z.string().optional().openapi({ description: 'URL of the icon on this API' }),
    organization: z.string(),
    visibility: z.enum(['private', 'unlisted', 'public']),
    categories: z.array(z.string()),
  })
  .openapi('DirectoryEntry');

export const IntegrationPage = Integration.extend({
  organizationTitle: z.string().openapi({ description: 'The title of the organization that publishes it' }),
  summary: z.string().optional().openapi({ description: 'Markdown source' }),
  scopeGrants: z.array(z.object({ scope: z.string(), grants: z.string() })),
  categories: z.array(z.string()).optional(),
  blocks: z.array(Block).optional(),
  externalLinks: z.array(z.object({ label: z.string(), url: z.string() })).optional(),
  configurationSchemas: z
    .object({ account: JsonSchema.optional(), site: JsonSchema.optional() })
    .openapi({ description: 'The JSON Schema of each configuration level the manifest declares' }),
  icon: z.string().optional().openapi({ description: 'URL of the icon on this API' }),
  previewImages: z.array(z.string()).openapi({ description: 'URLs of the preview images on this API' }),
  components: z
    .array(
      z.object({
        id: z.string(),
        title: z.string(),
        description: z.string().optional(),
        block: z.boolean().openapi({ description: 'In the quick insert menu; else on the configuration screen' }),
        configurationLevel: z.enum(['account', 'site']).optional().openapi({
          description:
            "A GitBook-dialect configuration component (`configurations.<level>.componentId`): the level whose screen shows it, `account` the organization installation's, `site` those of space and site installations; absent: every installation's",
        }),
      }),
    )
    .openapi({ description: 'The components the script defines (and the blocks the manifest registers)' }),
  shareToken: z.string().optional().openapi({ description: 'Its owners only: the token of its share link' }),
  gitbook: GitBookFacts.optional().openapi({
    description: 'Written for GitBook’s runtime: what its gitbook-manifest.yaml states beyond the manifest',
  }),
}).openapi('IntegrationPage');
