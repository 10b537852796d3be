/**
 * Installations (`/v1/orgs/{org}/installations`, `/v1/installations/{id}…`): installing into an
 * organization and, below it, into spaces and sites; reading one (with its dashboard page), its
 * selection, its configuration, pausing, its status history, its token, and uninstalling.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { endpointAlerts } from '../../delivery/endpoints.js';
import { patchConfiguration } from '../../installations/configure.js';
import { installForOrganization, installInto } from '../../installations/install.js';
import { loadInstallation } from '../../installations/load.js';
import { installationPage } from '../../installations/page.js';
import { setPaused } from '../../installations/pause.js';
import { setSelection } from '../../installations/selection.js';
import { rotateToken } from '../../installations/tokens.js';
import { uninstall } from '../../installations/uninstall.js';
import { readInstallation, statusHistory } from '../../installations/views.js';
import type { Caller } from '../middleware/credentials.js';
import { bearer, errorResponses, jsonAnswer, jsonBody, type RouteDeps, TAGS } from '../route.js';
import { Id } from '../schemas/common.js';
import {
  ConfigurationPatch,
  ConfigurationResult,
  Installation,
  InstallationRead,
  InstallInput,
  SelectionPatch,
  StatusChange,
} from '../schemas/installations.js';

const tags = TAGS.installations;

export function installationRoutes({
  ctx,
  principal,
  credentials,
}: Pick<RouteDeps, 'ctx' | 'principal'> & Pick<Caller, 'credentials'>): OpenAPIHono {
  const app = new OpenAPIHono();

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/orgs/{org}/installations',
      operationId: 'createInstallation',
      summary: 'Install an integration in an organization',
      tags,
      security: bearer,
      request: { params: z.object({ org: Id }), body: jsonBody(InstallInput, { integration: 'webhook' }) },
      responses: { 201: jsonAnswer(Installation), ...errorResponses },
    }),
    async (c) =>
      c.json(await installForOrganization(ctx, await principal(c), c.req.valid('param').org, c.req.valid('json')), 201),
  );

  for (const type of ['space', 'site'] as const) {
    app.openapi(
      createRoute({
        method: 'post',
        path: `/v1/installations/{id}/${type}s/{target}`,
        operationId: type === 'space' ? 'createSpaceInstallation' : 'createSiteInstallation',
        summary: `Install into a ${type}, below the organization-level installation`,
        tags,
        security: bearer,
        request: { params: z.object({ id: z.string(), target: Id }) },
        responses: { 201: jsonAnswer(Installation), ...errorResponses },
      }),
      async (c) => {
        const { id, target } = c.req.valid('param');
        return c.json(await installInto(ctx, await principal(c), id, { type, id: target }), 201);
      },
    );
  }

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/installations/{id}',
      operationId: 'getInstallation',
      summary: 'Read an installation (`?view=page`: with what its dashboard page shows)',
      tags,
      security: bearer,
      request: {
        params: z.object({ id: z.string() }),
        query: z.object({ view: z.enum(['page']).optional() }),
      },
      responses: { 200: jsonAnswer(InstallationRead), ...errorResponses },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const { installation, disabledEndpoints, reader } = await readInstallation(ctx, await credentials(c), id);
      if (c.req.valid('query').view === 'page')
        return c.json(await installationPage(ctx, await loadInstallation(ctx, id), reader), 200);
      return c.json({ ...installation, alerts: disabledEndpoints ? await endpointAlerts(ctx.db, id) : [] }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/v1/installations/{id}',
      operationId: 'updateInstallation',
      summary: 'Change which spaces and sites an organization installation is installed into (its selection)',
      tags,
      security: bearer,
      request: {
        params: z.object({ id: z.string() }),
        body: jsonBody(SelectionPatch, { space_selection: { mode: 'selected', spaces: ['handbook'] } }),
      },
      responses: { 200: jsonAnswer(Installation), ...errorResponses },
    }),
    async (c) => c.json(await setSelection(ctx, await principal(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/v1/installations/{id}/configuration',
      operationId: 'updateInstallationConfiguration',
      summary: 'Merge properties into the configuration; validates, updates the status, owes the setup event',
      tags,
      security: bearer,
      request: {
        params: z.object({ id: z.string() }),
        body: jsonBody(ConfigurationPatch, { url: 'https://example.com/webhooks' }),
      },
      responses: { 200: jsonAnswer(ConfigurationResult), ...errorResponses },
    }),
    async (c) => {
      return c.json(
        await patchConfiguration(ctx, await principal(c), c.req.valid('param').id, c.req.valid('json')),
        200,
      );
    },
  );

  for (const action of ['pause', 'resume'] as const) {
    app.openapi(
      createRoute({
        method: 'post',
        path: `/v1/installations/{id}/${action}`,
        operationId: action === 'pause' ? 'pauseInstallation' : 'resumeInstallation',
        summary:
          action === 'pause' ? 'Pause: no events, the public endpoint answers 503' : 'Resume a paused installation',
        tags,
        security: bearer,
        request: { params: z.object({ id: z.string() }) },
        responses: { 200: jsonAnswer(Installation), ...errorResponses },
      }),
      async (c) => c.json(await setPaused(ctx, await principal(c), c.req.valid('param').id, action === 'pause'), 200),
    );
  }

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/installations/{id}/status-history',
      operationId: 'listInstallationStatusHistory',
      summary: 'Every status change of the installation, with its time and cause',
      tags,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: jsonAnswer(z.array(StatusChange)), ...errorResponses },
    }),
    async (c) => c.json(await statusHistory(ctx, await principal(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/token/rotate',
      operationId: 'rotateInstallationToken',
      summary: 'Revoke the installation’s API token and mint a new one',
      tags,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 204: { description: 'Rotated' }, ...errorResponses },
    }),
    async (c) => {
      await rotateToken(ctx, await principal(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/installations/{id}',
      operationId: 'deleteInstallation',
      summary: 'Uninstall (and the space and site installations below it); its tokens stop working',
      tags,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 204: { description: 'Removed' }, ...errorResponses },
    }),
    async (c) => {
      await uninstall(ctx, await principal(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );

  return app;
}
