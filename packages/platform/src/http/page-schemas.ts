/** Schemas of the answers the dashboard's pages read (organizations, places, the directory, installation pages). */
import { z } from '@hono/zod-openapi';
import * as S from './schemas.js';

const Role = z.enum(['admin', 'member']);
const JsonSchema = z.record(z.string(), z.unknown()).openapi('JsonSchema', { description: 'A JSON Schema (2020-12)' });

export const ConfigurationField = z
  .object({
    name: z.string(),
    type: z.enum(['string', 'number', 'boolean', 'button']),
    title: z.string().openapi({ description: "The property's title, else its name" }),
    description: z.string().optional(),
    default: z.unknown().optional(),
    required: z.boolean(),
    enum: z.array(z.string()).optional().openapi({ description: 'A dropdown with these options' }),
    completion: z.boolean().openapi({
      description: 'A dropdown whose options the integration serves: POST /v1/installations/{id}/completions/{name}',
    }),
    buttonText: z
      .string()
      .optional()
      .openapi({ description: 'A button: its text; pressing it calls POST /v1/installations/{id}/oauth/start' }),
    connected: z.boolean().optional().openapi({ description: 'A button: whether its flow stored credentials' }),
    urlSchemes: z
      .array(z.string())
      .optional()
      .openapi({ description: 'A URL field: an absolute URL with one of these schemes is required' }),
    multiline: z
      .boolean()
      .optional()
      .openapi({ description: 'A text field of several lines (a webhook’s custom headers, one per line)' }),
  })
  .openapi('ConfigurationField', { description: 'One property of the configuration form, as the form shows it' });

export const Block = z
  .object({ id: z.string(), title: z.string(), description: z.string() })
  .openapi('Block', { description: 'A component registered in the quick insert menu' });

const pageFields = {
  integrationTitle: z.string(),
  integrationIcon: z.string().nullable().openapi({ description: 'URL of the icon on this API, or null' }),
  errors: z
    .array(z.object({ path: z.string(), message: z.string() }))
    .openapi({ description: 'What keeps the configuration from validating (what is missing while pending)' }),
  warnings: z
    .array(z.object({ path: z.string(), message: z.string() }))
    .openapi({ description: 'What a person should know although it validates (a webhook with no event selected)' }),
  configurationSchema: JsonSchema,
  fields: z.array(ConfigurationField),
  children: z
    .array(
      z.object({
        id: z.string(),
        target: z.object({ type: z.enum(['organization', 'space', 'site']), id: z.string() }),
        status: z.enum(['pending', 'active', 'paused']),
      }),
    )
    .openapi({ description: 'The space and site installations below an organization installation' }),
  endpoints: z.array(S.Endpoint).openapi({ description: 'Webhook endpoints it delivers to, with their health' }),
  blocks: z
    .array(Block)
    .openapi({ description: 'An active space installation: the blocks of its quick insert menu (else empty)' }),
};

export const InstallationPage = S.InstallationWithAlerts.extend(pageFields).openapi('InstallationPage');

/** GET /v1/installations/{id}: the page fields are there with `?view=page`. */
export const InstallationRead = S.InstallationWithAlerts.extend(
  Object.fromEntries(Object.entries(pageFields).map(([key, schema]) => [key, schema.optional()])) as {
    [K in keyof typeof pageFields]: z.ZodOptional<(typeof pageFields)[K]>;
  },
).openapi('InstallationRead', { description: 'With `?view=page` it also carries the fields of InstallationPage' });

export const OrganizationEntry = z
  .object({ id: z.string(), title: z.string(), role: Role })
  .openapi('OrganizationEntry');

export const OrganizationPage = z
  .object({
    id: z.string(),
    title: z.string(),
    role: Role,
    spaces: z.array(z.object({ id: z.string(), title: z.string() })),
    sites: z.array(z.object({ id: z.string(), title: z.string() })),
    members: z.array(z.object({ id: z.string(), name: z.string(), role: Role })),
    installations: z.array(InstallationPage).openapi({ description: 'Its organization-level installations' }),
  })
  .openapi('OrganizationPage');

export const PlacePage = z
  .object({
    id: z.string(),
    title: z.string(),
    organization: z.string(),
    installations: z.array(InstallationPage),
  })
  .openapi('PlacePage');

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

export const IntegrationPage = S.Integration.extend({
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
      }),
    )
    .openapi({ description: 'The components the script defines (and the blocks the manifest registers)' }),
  shareToken: z.string().optional().openapi({ description: 'Its owners only: the token of its share link' }),
  gitbook: S.GitBookFacts.optional().openapi({
    description: 'Written for GitBook’s runtime: what its gitbook-manifest.yaml states beyond the manifest',
  }),
}).openapi('IntegrationPage');
