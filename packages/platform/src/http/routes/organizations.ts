/**
 * Organizations and the places in them (`/v1/orgs…`, `/v1/spaces/{id}`, `/v1/sites/{id}`): the
 * operator syncs organizations, spaces, sites and memberships in; members read them as the
 * dashboard shows them, with what is installed there.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { requireAdmin } from '../../access/auth.js';
import { createOrganization } from '../../organizations/organizations.js';
import { listOrganizations, organizationPage, placePage } from '../../organizations/pages.js';
import { createPlace } from '../../organizations/spaces-and-sites.js';
import { setMembership } from '../../organizations/users.js';
import { bearer, errorResponses, jsonAnswer, jsonBody, type RouteDeps, TAGS } from '../route.js';
import { Id } from '../schemas/common.js';
import {
  Membership,
  MembershipInput,
  Organization,
  OrganizationEntry,
  OrganizationInput,
  OrganizationPage,
  Place,
  PlaceInput,
  PlacePage,
} from '../schemas/organizations.js';

const tags = TAGS.directory;

export function organizationRoutes({ ctx, principal }: Pick<RouteDeps, 'ctx' | 'principal'>): OpenAPIHono {
  const app = new OpenAPIHono();

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/orgs',
      operationId: 'createOrganization',
      summary: 'Create an organization (operator)',
      tags,
      security: bearer,
      request: { body: jsonBody(OrganizationInput, { id: 'acme', title: 'Acme', subdomain: 'acme' }) },
      responses: { 201: jsonAnswer(Organization), ...errorResponses },
    }),
    async (c) => {
      requireAdmin(await principal(c));
      return c.json(await createOrganization(ctx, c.req.valid('json')), 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/orgs',
      operationId: 'listOrganizations',
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
      operationId: 'getOrganization',
      summary: 'An organization: its spaces, sites, members and organization-level installations',
      tags,
      security: bearer,
      request: { params: z.object({ org: Id }) },
      responses: { 200: jsonAnswer(OrganizationPage), ...errorResponses },
    }),
    async (c) => c.json(await organizationPage(ctx, await principal(c), c.req.valid('param').org), 200),
  );

  for (const kind of ['spaces', 'sites'] as const) {
    app.openapi(
      createRoute({
        method: 'post',
        path: `/v1/orgs/{org}/${kind}`,
        operationId: kind === 'spaces' ? 'createSpace' : 'createSite',
        summary: `Create a ${kind === 'spaces' ? 'space' : 'site'} in an organization (operator)`,
        tags,
        security: bearer,
        request: {
          params: z.object({ org: Id }),
          body: jsonBody(PlaceInput, {
            id: kind === 'spaces' ? 'handbook' : 'docs-site',
            title: kind === 'spaces' ? 'Handbook' : 'Docs',
          }),
        },
        responses: { 201: jsonAnswer(Place), ...errorResponses },
      }),
      async (c) => {
        requireAdmin(await principal(c));
        return c.json(await createPlace(ctx, kind, c.req.valid('param').org, c.req.valid('json')), 201);
      },
    );
  }

  app.openapi(
    createRoute({
      method: 'put',
      path: '/v1/orgs/{org}/members/{user}',
      operationId: 'setMembership',
      summary: 'Make a user a member (or admin) of an organization (operator)',
      tags,
      security: bearer,
      request: {
        params: z.object({ org: Id, user: Id }),
        body: { ...jsonBody(MembershipInput, { role: 'admin' }), required: false },
      },
      responses: { 200: jsonAnswer(Membership), ...errorResponses },
    }),
    async (c) => {
      requireAdmin(await principal(c));
      const { org, user } = c.req.valid('param');
      const body = c.req.header('content-length') === '0' || !c.req.header('content-type') ? {} : c.req.valid('json');
      return c.json(await setMembership(ctx, org, user, body.role ?? 'member'), 200);
    },
  );

  for (const type of ['space', 'site'] as const) {
    app.openapi(
      createRoute({
        method: 'get',
        path: `/v1/${type}s/{id}`,
        operationId: type === 'space' ? 'getSpace' : 'getSite',
        summary: `A ${type} and the installations in it${type === 'space' ? ' (active ones with the blocks of the quick insert menu)' : ''}`,
        tags,
        security: bearer,
        request: { params: z.object({ id: Id }) },
        responses: { 200: jsonAnswer(PlacePage), ...errorResponses },
      }),
      async (c) => c.json(await placePage(ctx, await principal(c), type, c.req.valid('param').id), 200),
    );
  }

  return app;
}
