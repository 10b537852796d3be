/** Installations: installing, selection, configuration, status, their page, and rendering their components. */
import { z } from '@hono/zod-openapi';
import { Id, JsonSchema } from './common.js';
import { Endpoint } from './deliveries.js';
import { Block } from './integrations.js';

export const InstallInput = z
  .strictObject({
    integration: z.string().min(1),
    shareToken: z
      .string()
      .optional()
      .openapi({ description: 'Required to install an unlisted integration of another organization' }),
    scopes: z.array(z.string()).max(100).optional().openapi({
      description:
        'The scopes the admin was shown before confirming: when the integration asks for one more since, nothing is installed (400 `scopes_changed`)',
    }),
  })
  .openapi('InstallInput');

export const SpaceSelection = z
  .union([z.object({ mode: z.literal('all') }), z.object({ mode: z.literal('selected'), spaces: z.array(z.string()) })])
  .openapi('SpaceSelection', { description: 'Every space of the organization (also later ones), or the ones listed' });

export const SiteSelection = z
  .union([z.object({ mode: z.literal('all') }), z.object({ mode: z.literal('selected'), sites: z.array(z.string()) })])
  .openapi('SiteSelection', { description: 'Every site of the organization (also later ones), or the ones listed' });

export const Scopes = z
  .object({
    granted: z.array(z.string()).openapi({
      description:
        'What the organization granted: the ceiling of the events, token, environment and site scripts of the installation and those below it',
    }),
    requested: z.array(z.string()).openapi({
      description:
        'What the integration’s latest version asks for beyond that: pending until an admin of the organization accepts (POST /v1/installations/{id}/scopes/accept)',
    }),
  })
  .openapi('Scopes');

export const AcceptScopesInput = z
  .strictObject({
    scopes: z.array(z.string()).max(100).optional().openapi({
      description:
        'The scopes the admin was shown; when the integration asks for one more since, nothing is accepted (400 `scopes_changed`)',
    }),
  })
  .openapi('AcceptScopesInput');

export const ScopeRequest = z
  .object({
    installationId: z.string().openapi({ description: 'The organization installation that was asked' }),
    integration: z.string(),
    organization: z.string(),
    version: z.number().int().openapi({ description: 'The version that asks for more' }),
    granted: z.array(z.string()),
    requested: z.array(z.string()),
  })
  .openapi('ScopeRequest');

export const Installation = z
  .object({
    id: z.string(),
    integration: z.string(),
    organization: z.string(),
    target: z.object({ type: z.enum(['organization', 'space', 'site']), id: z.string() }),
    parentId: z.string().nullable(),
    status: z.enum(['pending', 'active', 'paused']),
    configuration: z.record(z.string(), z.unknown()).openapi({
      description:
        'The configuration; for a member of the organization, each secret (what an OAuth button stored) reads `********`',
    }),
    urls: z.object({ publicEndpoint: z.string() }),
    scopes: Scopes.optional().openapi({
      description:
        'In a read of the installation (and its page): granted and requested scopes, those of its organization installation for a space or site installation',
    }),
    space_selection: SpaceSelection.optional().openapi({ description: 'Organization installations only' }),
    site_selection: SiteSelection.optional().openapi({ description: 'Organization installations only' }),
    createdAt: z.string(),
  })
  .openapi('Installation');

export const Alert = z
  .object({
    code: z.literal('endpoint_disabled'),
    endpointId: z.string(),
    url: z.string(),
    since: z.string(),
    message: z.string(),
  })
  .openapi('Alert', {
    description: 'Something about the installation that needs a person: what, since when, how to fix it',
  });

export const InstallationWithAlerts = Installation.extend({ alerts: z.array(Alert) }).openapi('InstallationWithAlerts');

export const SelectionPatch = z
  .strictObject({
    space_selection: z
      .strictObject({ mode: z.enum(['all', 'selected']), spaces: z.array(Id).max(10_000).optional() })
      .optional(),
    site_selection: z
      .strictObject({ mode: z.enum(['all', 'selected']), sites: z.array(Id).max(10_000).optional() })
      .optional(),
  })
  .openapi('SelectionPatch', {
    description:
      '`{ mode: "all" }` installs into every space (site) of the organization, also those created later; `{ mode: "selected", spaces: [...] }` into exactly those named (places left out are uninstalled); `{ mode: "selected" }` alone keeps the current ones',
  });

export const ConfigurationPatch = z
  .record(z.string(), z.unknown())
  .openapi('ConfigurationPatch', { description: 'Properties to set; a property set to null is removed' });

export const ConfigurationResult = z
  .object({
    status: z.enum(['pending', 'active', 'paused']),
    configuration: z.record(z.string(), z.unknown()),
    errors: z.array(z.object({ path: z.string(), message: z.string() })),
    warnings: z.array(z.object({ path: z.string(), message: z.string() })).openapi({
      description: 'What a person should know although it validates (a webhook with no event selected)',
    }),
  })
  .openapi('ConfigurationResult');

export const StatusChange = z
  .object({ from: z.string().nullable(), to: z.string(), cause: z.string(), at: z.string() })
  .openapi('StatusChange');

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
  endpoints: z.array(Endpoint).openapi({ description: 'Webhook endpoints it delivers to, with their health' }),
  blocks: z
    .array(Block)
    .openapi({ description: 'An active space installation: the blocks of its quick insert menu (else empty)' }),
};

export const InstallationPage = InstallationWithAlerts.extend(pageFields).openapi('InstallationPage');

/** GET /v1/installations/{id}: the page fields are there with `?view=page`. */
export const InstallationRead = InstallationWithAlerts.extend(
  Object.fromEntries(Object.entries(pageFields).map(([key, schema]) => [key, schema.optional()])) as {
    [K in keyof typeof pageFields]: z.ZodOptional<(typeof pageFields)[K]>;
  },
).openapi('InstallationRead', { description: 'With `?view=page` it also carries the fields of InstallationPage' });

export const RenderInput = z
  .strictObject({
    props: z.record(z.string(), z.unknown()).optional(),
    state: z.record(z.string(), z.unknown()).optional(),
    action: z
      .object({ action: z.string().min(1) })
      .catchall(z.unknown())
      .optional(),
    editable: z.boolean().optional().openapi({
      description:
        "For a block: whether the person can edit the page it is in (the event's `context.editable`); false renders it as a reader sees it. Default true",
    }),
  })
  .openapi('RenderInput');

export const Rendered = z
  .union([
    z.object({ element: z.unknown(), state: z.record(z.string(), z.unknown()) }),
    z
      .object({ type: z.literal('complete'), returnValue: z.unknown() })
      .openapi({ description: "The component's action ended the interaction (a modal closes)" }),
  ])
  .openapi('Rendered', { description: 'A ContentKit tree with its state, or the end of the interaction' });
