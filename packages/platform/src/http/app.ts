/**
 * The HTTP API (DESIGN.md's contract table): Hono with route definitions that validate each
 * request and generate the OpenAPI 3.1 document at /v1/openapi.json, so the two cannot drift.
 * Errors are `{ error: { code, message } }` with a 4xx/5xx status.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { readAtMost } from '@portico/runtime';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Logger } from 'pino';
import { type Credentials, credentialsOf, principalOf, requireAdmin } from '../access/auth.js';
import { createSignInLink, SESSION_COOKIE, type SessionCredentials, sessionOf } from '../access/sessions.js';
import { sameSecret } from '../access/tokens.js';
import {
  callPublicEndpoint,
  integrationComponents,
  publishWarnings,
  renderComponent,
} from '../calls/integration-calls.js';
import { listDeliveries, redeliver, requestDelivery } from '../delivery/deliveries.js';
import { enableEndpoint, endpointAlerts, listEndpoints } from '../delivery/endpoints.js';
import { rotateSecret, secretsView } from '../delivery/signing-secrets.js';
import { sendTestDelivery } from '../delivery/test-delivery.js';
import { listDispatches } from '../dispatch/dispatch-log.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { DomainError, unauthenticated } from '../errors/domain-error.js';
import { type IncomingEvent, ingestEvent, ingestEvents } from '../events/ingest.js';
import { patchConfiguration } from '../installations/configure.js';
import { installForOrganization, installInto } from '../installations/install.js';
import { authorizedInstallation, loadInstallation } from '../installations/load.js';
import { installationPage } from '../installations/page.js';
import { setPaused } from '../installations/pause.js';
import { setSelection } from '../installations/selection.js';
import { rotateToken } from '../installations/tokens.js';
import { uninstall } from '../installations/uninstall.js';
import { readInstallation, statusHistory } from '../installations/views.js';
import { publish } from '../integrations/publish.js';
import { getIntegration } from '../integrations/read.js';
import { createOrganization } from '../organizations/organizations.js';
import { createPlace } from '../organizations/spaces-and-sites.js';
import { createUser, setMembership } from '../organizations/users.js';
import type { Principal, ServiceContext } from '../types.js';
import { compatGitBookRoutes } from './compat-gitbook-routes.js';
import { completionRoutes } from './completion-routes.js';
import { dashboardFiles } from './dashboard-files.js';
import { directoryRoutes } from './directory-routes.js';
import { oauthStartRoutes } from './oauth-start-routes.js';
import { onError } from './on-error.js';
import { orgRoutes } from './org-routes.js';
import { InstallationRead, IntegrationPage } from './page-schemas.js';
import { recoveryRoutes } from './recovery-routes.js';
import { bearer, errorResponses, jsonAnswer, jsonBody, type RouteDeps } from './route.js';
import * as S from './schemas.js';
import { sessionRoutes } from './session-routes.js';
import { streamRoutes } from './stream-routes.js';
import { traceRoutes } from './trace-routes.js';
import { describeValidationError } from './validation-error.js';

export interface AppOptions {
  ctx: ServiceContext;
  dispatcher: Dispatcher;
  adminToken: string;
  logger?: Logger | undefined;
  version: string;
  /** The built dashboard to serve at `/` (default: `@portico/dashboard`'s dist). */
  dashboardDir?: string | undefined;
  /** Aborted when the server stops: open event streams end. */
  closing?: AbortSignal | undefined;
  /** Told when a recovery starts, so this node works it at once. */
  recoveries?: { wake(): void } | undefined;
  /** Origins whose pages may frame the dashboard (PORTICO_FRAME_ANCESTORS). */
  frameAncestors?: string[] | undefined;
}

/** Bodies larger than this are refused with 413 (publishing: the larger limit, for the script). */
export const BODY_LIMIT_BYTES = 1024 * 1024;
export const PUBLISH_BODY_LIMIT_BYTES = 8 * 1024 * 1024;
/** Requests to public endpoints may carry up to this much (webhooks with attachments, uploads). */
export const PUBLIC_BODY_LIMIT_BYTES = 10 * 1024 * 1024;
const PUBLIC_PATH = /^\/v1\/installations\/[^/]+\/public(\/|$)/;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const tags = {
  directory: ['Organizations and users'],
  integrations: ['Integrations'],
  installations: ['Installations'],
  events: ['Events'],
  deliveries: ['Webhook deliveries'],
};

export function createApp(options: AppOptions) {
  const { ctx, adminToken, dispatcher } = options;
  const app = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (!result.success) {
        return c.json(
          { error: { code: 'invalid_request', message: describeValidationError(result.target, result.error) } },
          400,
        );
      }
    },
  });
  /** The request's session cookie, resolved, its CSRF token checked when the request changes something. */
  const sessionFor = async (
    c: Context,
    cookie = getCookie(c, SESSION_COOKIE),
  ): Promise<SessionCredentials | undefined> => {
    if (cookie === undefined) return undefined;
    const session = await sessionOf(ctx, adminToken, cookie);
    if (
      session !== undefined &&
      !SAFE_METHODS.has(c.req.method) &&
      !sameSecret(c.req.header('x-csrf-token'), session.csrfToken)
    ) {
      throw new DomainError(
        'forbidden',
        'csrf_refused',
        'a request that changes something must carry the session’s CSRF token in X-CSRF-Token (GET /v1/session answers it)',
      );
    }
    return session;
  };
  /**
   * A request's credentials: its bearer token, else its session cookie (services/sessions.ts).
   * Routes that look the token up in the query that reads what they answer use these; the others
   * use `principal`.
   */
  const credentials = async (c: Context): Promise<Credentials> => {
    const header = c.req.header('authorization');
    const cookie = header === undefined ? getCookie(c, SESSION_COOKIE) : undefined;
    if (cookie === undefined) return credentialsOf(adminToken, header);
    const session = await sessionFor(c, cookie);
    if (session === undefined) {
      throw unauthenticated('the session has ended (signed out, expired, or its token was revoked): sign in again');
    }
    return session.credentials;
  };
  const principal = async (c: Context): Promise<Principal> => {
    return principalOf(ctx, await credentials(c));
  };

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });

  app.use('*', async (c, next) => {
    const started = performance.now();
    await next();
    options.logger?.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    );
  });

  // A request that wrote is answered once its writes are on disk (storage/durability.ts).
  app.use('*', async (c, next) => {
    const mark = ctx.durability.mark();
    await next();
    try {
      await ctx.durability.after(mark);
    } catch (error) {
      options.logger?.error({ err: error }, 'could not sync the database log to disk');
      throw new DomainError(
        'unavailable',
        'not_durable',
        `the change was committed, but the database log could not be synced to disk (${(error as Error).message}); a power loss could undo it. Check the disk that holds the data directory, then read the change back before relying on it`,
      );
    }
  });

  app.use('*', async (c, next) => {
    const limit =
      c.req.path === '/v1/integrations' || c.req.path === '/v1/events/batch'
        ? PUBLISH_BODY_LIMIT_BYTES
        : PUBLIC_PATH.test(c.req.path)
          ? PUBLIC_BODY_LIMIT_BYTES
          : BODY_LIMIT_BYTES;
    const declared = Number(c.req.header('content-length') ?? '0');
    if (declared > limit)
      throw new DomainError(
        'too_large',
        'payload_too_large',
        `the body is ${declared} bytes; the limit for this route is ${limit}`,
      );
    // (Asked in this order: reading `body` makes the Node adapter build a whole Request.)
    if (
      c.req.method !== 'GET' &&
      c.req.method !== 'HEAD' &&
      c.req.header('content-length') === undefined &&
      c.req.raw.body !== null
    ) {
      // A body of unknown length (chunked) is read here, up to the limit, so no route reads more.
      const bytes = await readAtMost(c.req.raw, limit);
      if (bytes === undefined)
        throw new DomainError(
          'too_large',
          'payload_too_large',
          `the body is larger than the limit for this route, ${limit} bytes`,
        );
      c.req.raw = new Request(c.req.raw, { body: bytes });
    }
    await next();
  });

  app.onError(onError(options.logger));

  app.notFound((c) =>
    c.json(
      { error: { code: 'not_found', message: `no route ${c.req.method} ${c.req.path}; see /v1/openapi.json` } },
      404,
    ),
  );

  app.get('/healthz', async (c) => c.json({ ok: true }));

  sessionRoutes(app, {
    ctx,
    adminToken,
    embeddable: (options.frameAncestors?.length ?? 0) > 0,
    sessionOf: async (c) => {
      const session = await sessionFor(c);
      if (session === undefined) return undefined;
      return { principal: await principalOf(ctx, session.credentials), csrfToken: session.csrfToken };
    },
  });

  // Organizations, spaces, sites, users, memberships (the operator syncs them in).
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/orgs',
      summary: 'Create an organization (operator)',
      tags: tags.directory,
      security: bearer,
      request: { body: jsonBody(S.OrganizationInput) },
      responses: { 201: jsonAnswer(S.Organization), ...errorResponses },
    }),
    async (c) => {
      requireAdmin(await principal(c));
      return c.json(await createOrganization(ctx, c.req.valid('json')), 201);
    },
  );

  for (const kind of ['spaces', 'sites'] as const) {
    app.openapi(
      createRoute({
        method: 'post',
        path: `/v1/orgs/{org}/${kind}`,
        summary: `Create a ${kind === 'spaces' ? 'space' : 'site'} in an organization (operator)`,
        tags: tags.directory,
        security: bearer,
        request: { params: z.object({ org: S.Id }), body: jsonBody(S.PlaceInput) },
        responses: { 201: jsonAnswer(S.Place), ...errorResponses },
      }),
      async (c) => {
        requireAdmin(await principal(c));
        return c.json(await createPlace(ctx, kind, c.req.valid('param').org, c.req.valid('json')), 201);
      },
    );
  }

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/users',
      summary: 'Create a user and their API token (operator); the token is shown only here',
      tags: tags.directory,
      security: bearer,
      request: { body: jsonBody(S.UserInput) },
      responses: { 201: jsonAnswer(S.UserCreated), ...errorResponses },
    }),
    async (c) => {
      requireAdmin(await principal(c));
      return c.json(await createUser(ctx, c.req.valid('json')), 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/users/{id}/sign-in-links',
      summary:
        'A one-time link that signs the user in to the dashboard, at `path` when given (operator); valid 15 minutes',
      tags: tags.directory,
      security: bearer,
      request: { params: z.object({ id: z.string() }), body: jsonBody(S.SignInLinkInput) },
      responses: { 201: jsonAnswer(S.SignInLink), ...errorResponses },
    }),
    async (c) => {
      requireAdmin(await principal(c));
      const { path } = c.req.valid('json');
      return c.json(await createSignInLink(ctx, c.req.valid('param').id, path), 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'put',
      path: '/v1/orgs/{org}/members/{user}',
      summary: 'Make a user a member (or admin) of an organization (operator)',
      tags: tags.directory,
      security: bearer,
      request: {
        params: z.object({ org: S.Id, user: S.Id }),
        body: { ...jsonBody(S.MembershipInput), required: false },
      },
      responses: { 200: jsonAnswer(S.Membership), ...errorResponses },
    }),
    async (c) => {
      requireAdmin(await principal(c));
      const { org, user } = c.req.valid('param');
      const body = c.req.header('content-length') === '0' || !c.req.header('content-type') ? {} : c.req.valid('json');
      return c.json(await setMembership(ctx, org, user, body.role ?? 'member'), 200);
    },
  );

  // Integrations.
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/integrations',
      summary: 'Publish an integration, or a new version of one of your organization’s',
      tags: tags.integrations,
      security: bearer,
      request: { body: jsonBody(S.PublishInput) },
      responses: { 201: jsonAnswer(S.Published.extend({ warnings: z.array(z.string()) })), ...errorResponses },
    }),
    async (c) => {
      const published = await publish(ctx, await principal(c), c.req.valid('json'));
      return c.json(
        { ...published, warnings: await publishWarnings(dispatcher, published.name, published.version) },
        201,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/integrations/{name}',
      summary:
        'Read an integration for its page: its manifest without secrets, what each scope grants, its configuration schemas, files and components',
      tags: tags.integrations,
      security: bearer,
      request: {
        params: z.object({ name: z.string() }),
        query: z.object({
          shareToken: z.string().optional(),
          share: z.string().optional().openapi({ description: 'The same as shareToken' }),
        }),
      },
      responses: { 200: jsonAnswer(IntegrationPage), ...errorResponses },
    }),
    async (c) => {
      const { name } = c.req.valid('param');
      const { shareToken, share } = c.req.valid('query');
      const integration = await getIntegration(ctx, await principal(c), name, shareToken ?? share);
      return c.json({ ...integration, components: await integrationComponents(dispatcher, name) }, 200);
    },
  );

  // Installations.
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/orgs/{org}/installations',
      summary: 'Install an integration in an organization',
      tags: tags.installations,
      security: bearer,
      request: { params: z.object({ org: S.Id }), body: jsonBody(S.InstallInput) },
      responses: { 201: jsonAnswer(S.Installation), ...errorResponses },
    }),
    async (c) =>
      c.json(await installForOrganization(ctx, await principal(c), c.req.valid('param').org, c.req.valid('json')), 201),
  );

  for (const type of ['space', 'site'] as const) {
    app.openapi(
      createRoute({
        method: 'post',
        path: `/v1/installations/{id}/${type}s/{target}`,
        summary: `Install into a ${type}, below the organization-level installation`,
        tags: tags.installations,
        security: bearer,
        request: { params: z.object({ id: z.string(), target: S.Id }) },
        responses: { 201: jsonAnswer(S.Installation), ...errorResponses },
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
      summary: 'Read an installation (`?view=page`: with what its dashboard page shows)',
      tags: tags.installations,
      security: bearer,
      request: {
        params: z.object({ id: z.string() }),
        query: z.object({ view: z.enum(['page']).optional() }),
      },
      responses: { 200: jsonAnswer(InstallationRead), ...errorResponses },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const { installation, disabledEndpoints } = await readInstallation(ctx, await credentials(c), id);
      if (c.req.valid('query').view === 'page')
        return c.json(await installationPage(ctx, await loadInstallation(ctx, id)), 200);
      return c.json({ ...installation, alerts: disabledEndpoints ? await endpointAlerts(ctx.db, id) : [] }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/v1/installations/{id}',
      summary: 'Change which spaces and sites an organization installation is installed into (its selection)',
      tags: tags.installations,
      security: bearer,
      request: { params: z.object({ id: z.string() }), body: jsonBody(S.SelectionPatch) },
      responses: { 200: jsonAnswer(S.Installation), ...errorResponses },
    }),
    async (c) => c.json(await setSelection(ctx, await principal(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/v1/installations/{id}/configuration',
      summary: 'Merge properties into the configuration; validates, updates the status, owes the setup event',
      tags: tags.installations,
      security: bearer,
      request: { params: z.object({ id: z.string() }), body: jsonBody(S.ConfigurationPatch) },
      responses: { 200: jsonAnswer(S.ConfigurationResult), ...errorResponses },
    }),
    async (c) =>
      c.json(await patchConfiguration(ctx, await principal(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );

  for (const action of ['pause', 'resume'] as const) {
    app.openapi(
      createRoute({
        method: 'post',
        path: `/v1/installations/{id}/${action}`,
        summary:
          action === 'pause' ? 'Pause: no events, the public endpoint answers 503' : 'Resume a paused installation',
        tags: tags.installations,
        security: bearer,
        request: { params: z.object({ id: z.string() }) },
        responses: { 200: jsonAnswer(S.Installation), ...errorResponses },
      }),
      async (c) => c.json(await setPaused(ctx, await principal(c), c.req.valid('param').id, action === 'pause'), 200),
    );
  }

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/installations/{id}/status-history',
      summary: 'Every status change of the installation, with its time and cause',
      tags: tags.installations,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: jsonAnswer(z.array(S.StatusChange)), ...errorResponses },
    }),
    async (c) => c.json(await statusHistory(ctx, await principal(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/token/rotate',
      summary: 'Revoke the installation’s API token and mint a new one',
      tags: tags.installations,
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
      summary: 'Uninstall (and the space and site installations below it); its tokens stop working',
      tags: tags.installations,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 204: { description: 'Removed' }, ...errorResponses },
    }),
    async (c) => {
      await uninstall(ctx, await principal(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );

  // Events, components, public endpoints: where the platform reaches integrations.
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/events',
      summary:
        'Ingest a platform event (operator): persisted, acknowledged, then routed to the installations it concerns',
      tags: tags.events,
      security: bearer,
      request: { body: jsonBody(S.EventInput) },
      responses: { 202: jsonAnswer(S.EventAccepted), ...errorResponses },
    }),
    async (c) => {
      requireAdmin(await principal(c));
      return c.json(await ingestEvent(ctx, c.req.valid('json')), 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/events/batch',
      summary: `Ingest up to ${S.MAX_BATCH_EVENTS} events at once (operator): each is checked, persisted and answered as the single route would; an invalid one gets its own error`,
      tags: tags.events,
      security: bearer,
      request: { body: jsonBody(S.EventBatchInput) },
      responses: { 202: jsonAnswer(S.EventBatchResult), ...errorResponses },
    }),
    async (c) => {
      requireAdmin(await principal(c));
      const { events } = c.req.valid('json');
      const results = await ingestEvents(
        ctx,
        events.map((event, index) => {
          const parsed = S.EventInput.safeParse(event);
          if (parsed.success) return parsed.data as IncomingEvent;
          const reason = describeValidationError(`events.${index}`, parsed.error).replace(/^invalid request: /, '');
          return new DomainError('invalid', 'invalid_event', reason);
        }),
      );
      return c.json(
        {
          results: results.map((r) => ('error' in r ? { error: { code: r.error.code, message: r.error.message } } : r)),
        },
        202,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/components/{componentId}/render',
      summary: 'Render a component (ui_render), running an action first when one is given',
      tags: tags.installations,
      security: bearer,
      request: { params: z.object({ id: z.string(), componentId: z.string() }), body: jsonBody(S.RenderInput) },
      responses: { 200: jsonAnswer(S.Rendered), ...errorResponses },
    }),
    async (c) => {
      const { id, componentId } = c.req.valid('param');
      return c.json(
        await renderComponent(ctx, dispatcher, await principal(c), id, componentId, c.req.valid('json')),
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/installations/{id}/dispatches',
      summary: 'The latest dispatches to this installation: event, host, status, duration, error and logs',
      tags: tags.installations,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: jsonAnswer(z.array(S.DispatchRecord)), ...errorResponses },
    }),
    async (c) => c.json(await listDispatches(ctx, await principal(c), c.req.valid('param').id), 200),
  );

  // Webhook deliveries and signing secrets.
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/deliveries',
      summary:
        'Ask the delivery engine to deliver a signed JSON body to a URL (the installation itself, or its organization)',
      tags: tags.deliveries,
      security: bearer,
      request: { params: z.object({ id: z.string() }), body: jsonBody(S.DeliveryInput) },
      responses: { 202: jsonAnswer(z.object({ id: z.string(), status: z.string() })), ...errorResponses },
    }),
    async (c) =>
      c.json(await requestDelivery(ctx, await principal(c), c.req.valid('param').id, c.req.valid('json')), 202),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/installations/{id}/deliveries',
      summary: 'Deliveries with their attempts, newest first; the next page’s cursor is in X-Next-Cursor',
      tags: tags.deliveries,
      security: bearer,
      request: {
        params: z.object({ id: z.string() }),
        query: z.object({
          status: z.enum(['pending', 'delivered', 'failed']).optional(),
          eventId: z.string().optional(),
          limit: z.coerce.number().int().min(1).max(200).optional(),
          cursor: z.string().optional(),
          latest: z.enum(['true', 'false']).optional().openapi({
            description:
              'true: only the latest delivery of each event and URL (one redelivered since is left out, so its redelivery decides the status filter)',
          }),
        }),
      },
      responses: { 200: jsonAnswer(z.array(S.Delivery)), ...errorResponses },
    }),
    async (c) => {
      const { latest, ...query } = c.req.valid('query');
      const page = await listDeliveries(ctx, await principal(c), c.req.valid('param').id, {
        ...query,
        latest: latest === 'true',
      });
      if (page.nextCursor) c.header('x-next-cursor', page.nextCursor);
      return c.json(page.deliveries, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/installations/{id}/endpoints',
      summary:
        'The URLs this installation delivers to, with their health (failures in a row, last success) and whether they are disabled',
      tags: tags.deliveries,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: jsonAnswer(z.array(S.Endpoint)), ...errorResponses },
    }),
    async (c) => c.json(await listEndpoints(ctx, await principal(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/endpoints/{endpointId}/enable',
      summary:
        'Enable a disabled endpoint: new deliveries go to it again (redeliver what failed while it was disabled)',
      tags: tags.deliveries,
      security: bearer,
      request: { params: z.object({ id: z.string(), endpointId: z.string() }) },
      responses: { 200: jsonAnswer(S.Endpoint), ...errorResponses },
    }),
    async (c) => {
      const { id, endpointId } = c.req.valid('param');
      return c.json(await enableEndpoint(ctx, await principal(c), id, endpointId), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/deliveries/{id}/redeliver',
      summary: 'Deliver again: a new delivery with the same body and eventId',
      tags: tags.deliveries,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 202: jsonAnswer(S.Delivery), ...errorResponses },
    }),
    async (c) => c.json(await redeliver(ctx, await principal(c), c.req.valid('param').id), 202),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/installations/{id}/signing-secret',
      summary:
        'The current signing secret of X-Platform-Signature (created on first use), and the previous ones still signing after a rotation',
      tags: tags.deliveries,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: jsonAnswer(S.SigningSecret), ...errorResponses },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      await authorizedInstallation(ctx, await principal(c), id);
      return c.json(await secretsView(ctx, id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/signing-secret/rotate',
      summary: 'Make a new signing secret current; the previous one keeps signing for 24 h',
      tags: tags.deliveries,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: jsonAnswer(S.SigningSecret), ...errorResponses },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      await authorizedInstallation(ctx, await principal(c), id);
      await rotateSecret(ctx, id);
      return c.json(await secretsView(ctx, id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/test-delivery',
      summary:
        'Send test event: a signed example `{ eventId, type: "webhook_test", installationId, test: true }` to the configured URL, through the delivery engine',
      tags: tags.deliveries,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 202: jsonAnswer(S.TestDelivery), ...errorResponses },
    }),
    async (c) => c.json(await sendTestDelivery(ctx, await principal(c), c.req.valid('param').id), 202),
  );

  const publicEndpoint = async (c: Context) => callPublicEndpoint(ctx, dispatcher, c.req.param('id') ?? '', c.req.raw);
  app.all('/v1/installations/:id/public', publicEndpoint);
  app.all('/v1/installations/:id/public/*', publicEndpoint);
  for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
    app.openAPIRegistry.registerPath({
      method,
      path: '/v1/installations/{id}/public/{path}',
      summary: "The installation's public endpoint: any method, any body, handed unchanged to the integration's fetch",
      tags: tags.installations,
      request: { params: z.object({ id: z.string(), path: z.string() }) },
      responses: {
        200: { description: "Whatever the integration's fetch handler answers" },
        404: errorResponses[404],
        413: errorResponses[413],
        503: { description: 'The installation is paused' },
      },
    });
  }

  const deps: RouteDeps = { ctx, dispatcher, principal };
  orgRoutes(app, deps);
  directoryRoutes(app, deps);
  oauthStartRoutes(app, deps);
  streamRoutes(app, deps, { closing: options.closing });
  recoveryRoutes(app, deps, options.recoveries);
  completionRoutes(app, deps);
  traceRoutes(app, deps);
  app.route('/compat/gitbook', compatGitBookRoutes(deps));

  app.doc31('/v1/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'Portico API', version: options.version, description: 'The Portico integration platform API' },
  });
  // Last: every other GET outside /v1 is the web app's.
  dashboardFiles(app, {
    dir: options.dashboardDir,
    extraOrigins: () => (ctx.publicUrl ? [new URL(ctx.publicUrl).origin] : []),
    frameAncestors: options.frameAncestors,
  });

  return app;
}
