/** Request and response schemas of the API: they validate requests and generate /v1/openapi.json. */
import { z } from '@hono/zod-openapi';
import { ID_PATTERN } from '../types.js';

export const Id = z
  .string()
  .regex(ID_PATTERN, { error: 'must be 1 to 64 letters, digits, `_`, `-` or `.`, starting with a letter or digit' })
  .openapi({ example: 'acme' });

export const ErrorBody = z
  .object({
    error: z.object({ code: z.string(), message: z.string() }).catchall(z.unknown()),
  })
  .openapi('Error');

export const OrganizationInput = z
  .strictObject({ id: Id, title: z.string().min(1), subdomain: Id.optional() })
  .openapi('OrganizationInput');
export const Organization = z
  .object({ id: z.string(), title: z.string(), subdomain: z.string().nullable() })
  .openapi('Organization');

export const PlaceInput = z.strictObject({ id: Id, title: z.string().min(1) }).openapi('PlaceInput');
export const Place = z.object({ id: z.string(), organization: z.string(), title: z.string() }).openapi('Place');

export const UserInput = z.strictObject({ id: Id, name: z.string().min(1) }).openapi('UserInput');
export const UserCreated = z.object({ id: z.string(), name: z.string(), token: z.string() }).openapi('UserCreated');

export const MembershipInput = z
  .strictObject({ role: z.enum(['admin', 'member']).optional() })
  .openapi('MembershipInput');
export const Membership = z
  .object({ organization: z.string(), user: z.string(), role: z.enum(['admin', 'member']) })
  .openapi('Membership');

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

export const InstallInput = z
  .strictObject({
    integration: z.string().min(1),
    shareToken: z
      .string()
      .optional()
      .openapi({ description: 'Required to install an unlisted integration of another organization' }),
  })
  .openapi('InstallInput');

export const SpaceSelection = z
  .union([z.object({ mode: z.literal('all') }), z.object({ mode: z.literal('selected'), spaces: z.array(z.string()) })])
  .openapi('SpaceSelection', { description: 'Every space of the organization (also later ones), or the ones listed' });
export const SiteSelection = z
  .union([z.object({ mode: z.literal('all') }), z.object({ mode: z.literal('selected'), sites: z.array(z.string()) })])
  .openapi('SiteSelection', { description: 'Every site of the organization (also later ones), or the ones listed' });

export const Installation = z
  .object({
    id: z.string(),
    integration: z.string(),
    organization: z.string(),
    target: z.object({ type: z.enum(['organization', 'space', 'site']), id: z.string() }),
    parentId: z.string().nullable(),
    status: z.enum(['pending', 'active', 'paused']),
    configuration: z.record(z.string(), z.unknown()),
    urls: z.object({ publicEndpoint: z.string() }),
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

export const Endpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    destination: z.string().openapi({ description: 'scheme://host:port' }),
    state: z.enum(['healthy', 'failing', 'disabled']),
    consecutiveFailures: z.number(),
    failingSince: z.string().nullable(),
    lastSuccessAt: z.string().nullable(),
    lastFailureAt: z.string().nullable(),
    lastError: z.string().nullable(),
    disabledAt: z.string().nullable(),
    disabledReason: z.string().nullable(),
  })
  .openapi('Endpoint');

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

const Visitor = z.strictObject({
  anonymousId: z.string(),
  userAgent: z.string(),
  ip: z.string(),
  cookies: z.record(z.string(), z.string()),
});
const EventId = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .openapi({ description: 'Unique per event; a repeated eventId is accepted once' });
const spaceEvent = <T extends string, S extends z.ZodRawShape>(type: T, fields: S) =>
  z.strictObject({ type: z.literal(type), eventId: EventId, spaceId: Id, ...fields });

export const EventInput = z
  .discriminatedUnion('type', [
    spaceEvent('space_content_updated', { revisionId: z.string().min(1) }),
    spaceEvent('space_view', {
      visitor: Visitor.optional(),
      url: z.string().optional(),
      referrer: z.string().optional(),
    }),
    spaceEvent('space_visibility_updated', { visibility: z.string().optional() }),
    spaceEvent('space_gitsync_started', { revisionId: z.string().optional() }),
    spaceEvent('space_gitsync_completed', {
      revisionId: z.string().optional(),
      state: z.enum(['success', 'failure']).optional(),
    }),
    z.strictObject({
      type: z.literal('site_view'),
      eventId: EventId,
      siteId: Id,
      visitor: Visitor,
      url: z.string(),
      referrer: z.string(),
    }),
    z.strictObject({
      type: z.literal('page_feedback'),
      eventId: EventId,
      siteId: Id,
      spaceId: Id,
      pageId: z.string().min(1),
      feedback: z.strictObject({ rating: z.string(), comment: z.string() }),
      visitor: Visitor,
      url: z.string(),
      referrer: z.string(),
    }),
  ])
  .openapi('EventInput');

export const EventAccepted = z.object({ eventId: z.string(), duplicate: z.boolean() }).openapi('EventAccepted');

/** Most events one batch may carry. */
export const MAX_BATCH_EVENTS = 1000;

export const EventBatchInput = z
  .strictObject({
    // Each event is checked on its own (an invalid one gets its own error), so any object is taken here.
    events: z
      .array(z.record(z.string(), z.unknown()).openapi({ $ref: '#/components/schemas/EventInput' } as never))
      .min(1)
      .max(MAX_BATCH_EVENTS),
  })
  .openapi('EventBatchInput');

export const EventBatchResult = z
  .object({
    results: z.array(
      z.union([EventAccepted, z.object({ error: z.object({ code: z.string(), message: z.string() }) })]),
    ),
  })
  .openapi('EventBatchResult', { description: 'One result per event, in the order sent' });

export const RenderInput = z
  .strictObject({
    props: z.record(z.string(), z.unknown()).optional(),
    state: z.record(z.string(), z.unknown()).optional(),
    action: z
      .object({ action: z.string().min(1) })
      .catchall(z.unknown())
      .optional(),
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

export const DispatchRecord = z
  .object({
    id: z.number().openapi({ description: 'Increases with each dispatch recorded' }),
    eventId: z.string().nullable(),
    type: z.string(),
    host: z.string(),
    status: z.number(),
    durationMs: z.number(),
    error: z.string().nullable(),
    logs: z.array(z.string()),
    at: z.string(),
  })
  .openapi('Dispatch');

export const DeliveryInput = z
  .strictObject({
    url: z.string().min(1),
    eventId: z.string().min(1).max(200),
    type: z.string().min(1).max(100),
    payload: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'The JSON body to deliver, byte for byte on every attempt' }),
  })
  .openapi('DeliveryInput');

export const Delivery = z
  .object({
    id: z.string(),
    eventId: z.string(),
    type: z.string(),
    url: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    createdAt: z.string(),
    nextAttemptAt: z.string().nullable(),
    lastError: z.string().nullable(),
    redeliveryOf: z.string().nullable(),
    endpointId: z.string().nullable(),
    attempts: z.array(
      z.object({
        number: z.number(),
        at: z.string(),
        status: z.number().nullable(),
        durationMs: z.number(),
        error: z.string().nullable(),
        response: z.string().nullable(),
      }),
    ),
  })
  .openapi('Delivery');

export const SigningSecret = z
  .object({
    secret: z.string().openapi({ description: 'The current secret: it signs every delivery' }),
    previous: z
      .array(z.object({ secret: z.string(), expiresAt: z.string() }))
      .openapi({ description: 'Secrets replaced by a rotation that still sign until expiresAt (24 h), newest first' }),
  })
  .openapi('SigningSecret');

export const TestDelivery = z
  .object({ id: z.string(), status: z.string(), eventId: z.string(), url: z.string() })
  .openapi('TestDelivery', { description: 'The test delivery: follow it in GET /v1/installations/{id}/deliveries' });

export const SignInLinkInput = z
  .strictObject({
    path: z.string().optional().openapi({
      description: 'The dashboard page the link opens, such as /installations/inst_… (default: the overview)',
    }),
  })
  .openapi('SignInLinkInput');

export const SignInLink = z
  .object({
    url: z
      .string()
      .openapi({ description: 'Open it once, before expiresAt: it signs the user in (the code is in the fragment)' }),
    expiresAt: z.string(),
  })
  .openapi('SignInLink');
