/**
 * What the dashboard's installation page shows besides the installation itself: the integration's
 * title and icon, what is missing while it is pending, the configuration form of its level (JSON
 * Schema, and each field as the form draws it), the installations below an organization
 * installation, the webhook endpoints with their health, and, for a space, the blocks of its quick
 * insert menu. Read on demand (`?view=page`, and the organization, space and site pages), so the
 * plain read of an installation stays one query.
 */
import { configurationSchema, type JsonSchema, type Manifest } from '@portico/manifest';
import { endpointAlerts, endpointsOf } from '../delivery/endpoints.js';
import { undeclaredOf } from '../gitbook/dialect.js';
import { assetUrl, storedAssets } from '../integrations/assets.js';
import { loadIntegration } from '../integrations/read.js';
import { placesBelow } from '../storage/repositories/installations.js';
import type { Database, InstallationStatus, TargetType } from '../storage/schema.js';
import type { ServiceContext } from '../types.js';
import { type ConfigurationError, levelOf, validateConfiguration } from './configuration.js';
import { grantedTo, scopesView } from './granted-scopes.js';
import { configurationFor, type Reader } from './secret-configuration.js';
import { fullView, type InstallationView } from './views.js';
import { isBuiltinWebhook, selectableEvents, webhookWarnings } from './webhook-configuration.js';

type Row = Database['installations'];

/** One property of the configuration form, as the form shows it. */
export interface ConfigurationField {
  name: string;
  type: 'string' | 'number' | 'boolean' | 'button';
  /** The property's title, else its name. */
  title: string;
  description?: string;
  default?: unknown;
  required: boolean;
  /** A dropdown's fixed options. */
  enum?: string[];
  /** A dropdown whose options the integration serves: POST /v1/installations/{id}/completions/{name}. */
  completion: boolean;
  /** A button: its text; pressing it starts POST /v1/installations/{id}/oauth/start { property }. */
  buttonText?: string;
  /** A button: whether its flow stored credentials (the property is set). */
  connected?: boolean;
  /** A URL field: the schemes it accepts (an absolute URL is required). */
  urlSchemes?: string[];
  /** A text field of several lines (a webhook's custom headers, one per line). */
  multiline?: boolean;
}

export interface InstallationPage extends InstallationView {
  alerts: Awaited<ReturnType<typeof endpointAlerts>>;
  integrationTitle: string;
  /** The integration's icon (a URL on this API), or null when it published none. */
  integrationIcon: string | null;
  /** What keeps it from validating (what is missing while pending); empty once it validates. */
  errors: ConfigurationError[];
  /** What a person should know although it validates (a webhook with no event selected). */
  warnings: ConfigurationError[];
  /** The JSON Schema its configuration must satisfy (`account` level for organizations, `site` below). */
  configurationSchema: JsonSchema;
  fields: ConfigurationField[];
  /** The space and site installations below an organization installation (empty for those). */
  children: { id: string; target: { type: TargetType; id: string }; status: InstallationStatus }[];
  /** The webhook endpoints it delivers to, with their health (empty when it delivers nowhere). */
  endpoints: Awaited<ReturnType<typeof endpointsOf>>;
  /** A space installation that is active: the blocks of the quick insert menu (else empty). */
  blocks: { id: string; title: string; description: string }[];
}

/** The page view of an installation the caller has already been authorized to read (secrets masked for a member). */
export async function installationPage(ctx: ServiceContext, row: Row, reader: Reader): Promise<InstallationPage> {
  const [view, { row: integration, manifest, gitbook }, endpoints, children, granted] = await Promise.all([
    fullView(ctx, row),
    loadIntegration(ctx, row.integration_name),
    endpointsOf(ctx.db, row.id),
    row.target_type === 'organization' ? placesBelow(ctx.db, row.id) : Promise.resolve([]),
    grantedTo(ctx, row),
  ]);
  const stored = await storedAssets(ctx.db, integration.name, integration.latest_version);
  const level = levelOf(row.target_type);
  const errors = validateConfiguration(manifest, level, view.configuration, undeclaredOf(gitbook));
  const webhook = isBuiltinWebhook({ name: integration.name, organization: integration.organization_id });
  let fields = configurationFields(manifest, level, view.configuration);
  let schema = configurationSchema(manifest, level);
  if (webhook) {
    // Only the events of the place it is in: a space's webhook has no site views to select.
    const offered = new Set(['url', ...selectableEvents(row.target_type), 'headers', 'delivery_policy']);
    fields = fields
      .filter((field) => offered.has(field.name))
      .map((field) =>
        field.name === 'url'
          ? { ...field, urlSchemes: ctx.allowPrivateNetwork ? ['https', 'http'] : ['https'] }
          : field.name === 'headers'
            ? { ...field, multiline: true }
            : field,
      );
    const properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, unknown>).filter(([name]) => offered.has(name)),
    );
    schema = { ...schema, properties };
  }
  return {
    ...view,
    configuration: configurationFor(reader, manifest, row.target_type, view.configuration),
    scopes: scopesView(granted, manifest.scopes),
    alerts: endpoints.some((e) => e.state === 'disabled') ? await endpointAlerts(ctx.db, row.id) : [],
    integrationTitle: manifest.title,
    integrationIcon: stored.has('icon') ? assetUrl(integration.name, integration.latest_version, 'icon') : null,
    errors,
    warnings: webhook && errors.length === 0 ? webhookWarnings(row.target_type, view.configuration) : [],
    configurationSchema: schema,
    fields,
    children: children.map((c) => ({ id: c.id, target: { type: c.target_type, id: c.target_id }, status: c.status })),
    endpoints,
    blocks: row.target_type === 'space' && row.status === 'active' ? [...(manifest.blocks ?? [])] : [],
  };
}

/** The properties of one level's configuration, in the manifest's order, as the form shows them. */
export function configurationFields(
  manifest: Manifest,
  level: 'account' | 'site',
  configuration: Record<string, unknown>,
): ConfigurationField[] {
  const block = manifest.configurations?.[level];
  const required = new Set(block?.required ?? []);
  return Object.entries(block?.properties ?? {}).map(([name, property]) => ({
    name,
    type: property.type,
    title: property.title ?? name,
    ...(property.description !== undefined ? { description: property.description } : {}),
    ...('default' in property && property.default !== undefined ? { default: property.default } : {}),
    required: required.has(name),
    ...(property.type === 'string' && property.enum ? { enum: [...property.enum] } : {}),
    completion: property.type === 'string' && property.completion_url !== undefined,
    ...(property.type === 'button'
      ? {
          buttonText: property.button_text,
          connected: configuration[name] !== undefined && configuration[name] !== null,
        }
      : {}),
  }));
}
