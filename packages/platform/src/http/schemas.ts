/** Request and response schemas of the API: they validate requests and generate /v1/openapi.json. */
import { z } from '@hono/zod-openapi';
import { ID_PATTERN } from '../services/context.js';

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

export const PublishInput = z
  .strictObject({
    manifest: z.string().min(1).openapi({ description: 'The text of platform-manifest.yaml' }),
    script: z.string().openapi({ description: 'The entry script, bundled into one ES module' }),
    secrets: z.record(z.string(), z.string()).optional().openapi({
      description: 'Values of the environment variables the manifest secrets reference (`${{ env.NAME }}`)',
    }),
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
    createdAt: z.string(),
  })
  .openapi('Installation');

export const ConfigurationPatch = z
  .record(z.string(), z.unknown())
  .openapi('ConfigurationPatch', { description: 'Properties to set; a property set to null is removed' });

export const ConfigurationResult = z
  .object({
    status: z.enum(['pending', 'active', 'paused']),
    configuration: z.record(z.string(), z.unknown()),
    errors: z.array(z.object({ path: z.string(), message: z.string() })),
  })
  .openapi('ConfigurationResult');

export const StatusChange = z
  .object({ from: z.string().nullable(), to: z.string(), cause: z.string(), at: z.string() })
  .openapi('StatusChange');
