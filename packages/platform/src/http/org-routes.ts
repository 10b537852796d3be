/**
 * Reading organizations, spaces and sites as the dashboard shows them: the organizations the caller
 * belongs to, and each organization, space and site with what is installed there.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { listOrganizations, organizationPage, placePage } from '../organizations/pages.js';
import { OrganizationEntry, OrganizationPage, PlacePage } from './page-schemas.js';
import { bearer, errorResponses, jsonAnswer, type RouteDeps } from './route.js';
import * as S from './schemas.js';

const tags = ['Organizations and users'];

export function orgRoutes(app: OpenAPIHono, { ctx, principal }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/orgs',
      summary: 'The organizations you belong to, with your role (the operator: all of them, as admin)',
      tags,
      security: bearer,
      responses: { 200: jsonAnswer(z.array(OrganizationEntry)), ...errorResponses },
    }),
    async (c) => c.json(await listOrganizations(ctx, await principal(c)), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/orgs/{org}',
      summary: 'An organization: its spaces, sites, members and organization-level installations',
      tags,
      security: bearer,
      request: { params: z.object({ org: S.Id }) },
      responses: { 200: jsonAnswer(OrganizationPage), ...errorResponses },
    }),
    async (c) => c.json(await organizationPage(ctx, await principal(c), c.req.valid('param').org), 200),
  );

  for (const type of ['space', 'site'] as const) {
    app.openapi(
      createRoute({
        method: 'get',
        path: `/v1/${type}s/{id}`,
        summary: `A ${type} and the installations in it${type === 'space' ? ' (active ones with the blocks of the quick insert menu)' : ''}`,
        tags,
        security: bearer,
        request: { params: z.object({ id: S.Id }) },
        responses: { 200: jsonAnswer(PlacePage), ...errorResponses },
      }),
      async (c) => c.json(await placePage(ctx, await principal(c), type, c.req.valid('param').id), 200),
    );
  }
}
