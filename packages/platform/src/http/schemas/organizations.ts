/** Organizations, their spaces and sites, memberships, and the pages the dashboard reads of them. */
import { z } from '@hono/zod-openapi';
import { Id } from './common.js';
import { InstallationPage } from './installations.js';

export const OrganizationInput = z
  .strictObject({ id: Id, title: z.string().min(1), subdomain: Id.optional() })
  .openapi('OrganizationInput');

export const Organization = z
  .object({ id: z.string(), title: z.string(), subdomain: z.string().nullable() })
  .openapi('Organization');

export const PlaceInput = z.strictObject({ id: Id, title: z.string().min(1) }).openapi('PlaceInput');

export const Place = z.object({ id: z.string(), organization: z.string(), title: z.string() }).openapi('Place');

export const MembershipInput = z
  .strictObject({ role: z.enum(['admin', 'member']).optional() })
  .openapi('MembershipInput');

export const Membership = z
  .object({ organization: z.string(), user: z.string(), role: z.enum(['admin', 'member']) })
  .openapi('Membership');

export const Role = z.enum(['admin', 'member']);

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

export const AlertUrlInput = z
  .strictObject({
    url: z.string().openapi({
      description:
        'Where alerts about the organization’s installations are POSTed, signed: https (http and private addresses only with PORTICO_ALLOW_PRIVATE_NETWORK=1)',
      example: 'https://ops.example.com/portico-alerts',
    }),
  })
  .openapi('AlertUrlInput');

export const AlertUrl = z
  .object({
    url: z.string().nullable().openapi({ description: 'null: alerts about its installations go only to the operator' }),
    installationId: z.string().nullable().openapi({
      description: 'The alerts installation whose deliveries the alerts are (null before the first set)',
    }),
    updatedAt: z.string().nullable(),
    updatedBy: z.string().nullable(),
  })
  .openapi('AlertUrl');
