/**
 * The HTTP API (DESIGN.md's contract table): Hono with route definitions that validate each
 * request and generate the OpenAPI 3.1 document at /v1/openapi.json, so the two cannot drift.
 * Errors are `{ error: { code, message } }` with a 4xx/5xx status (on-error.ts).
 *
 * This file only composes: the middlewares (middleware/), then one route module per resource
 * (routes/), each an OpenAPIHono whose routes and schemas `app.route()` adds to this app's
 * document. The dashboard's files come last: every other GET outside /v1 is the web app's.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { SESSION_COOKIE } from '../access/sessions.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import type { ServiceContext } from '../types.js';
import { bodyLimit } from './middleware/body-limit.js';
import { callerOf } from './middleware/credentials.js';
import { durabilityGate } from './middleware/durability.js';
import { notFound } from './middleware/not-found.js';
import { requestLog } from './middleware/request-log.js';
import { validationHook } from './middleware/validation.js';
import { onError } from './on-error.js';
import { type RouteDeps, TAG_DESCRIPTIONS } from './route.js';
import { apiDocsRoutes } from './routes/api-docs.js';
import { compatGitBookRoutes } from './routes/compat-gitbook.js';
import { completionRoutes } from './routes/completions.js';
import { componentRoutes } from './routes/components.js';
import { dashboardFiles } from './routes/dashboard-files.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { dispatchRoutes } from './routes/dispatches.js';
import { eventRoutes } from './routes/events.js';
import { grantedScopeRoutes } from './routes/granted-scopes.js';
import { healthRoutes } from './routes/health.js';
import { installationRoutes } from './routes/installations.js';
import { integrationPublicEndpointRoutes } from './routes/integration-public-endpoints.js';
import { integrationRoutes } from './routes/integrations.js';
import { oauthRoutes } from './routes/oauth.js';
import { organizationAlertRoutes } from './routes/organization-alerts.js';
import { organizationRoutes } from './routes/organizations.js';
import { publicEndpointRoutes } from './routes/public-endpoints.js';
import { recoveryRoutes } from './routes/recoveries.js';
import { sessionRoutes } from './routes/sessions.js';
import { siteScriptRoutes } from './routes/site-scripts.js';
import { streamRoutes } from './routes/streams.js';
import { troubledEndpointRoutes } from './routes/troubled-endpoints.js';
import { userRoutes } from './routes/users.js';

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
  /** `/readyz` and `/metrics` (observability/routes.ts). */
  operations?: Hono | undefined;
}

/**
 * What the API's document says besides its routes: for GET /v1/openapi.json, and for
 * `app.getOpenAPI31Document()` where the document is written without a server (@portico/client's
 * build generates its types from it).
 */
export function apiDocumentConfig(version: string, serverUrl: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Portico API',
      version,
      description: 'The Portico integration platform API',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: serverUrl, description: 'This server' }],
    tags: TAG_DESCRIPTIONS,
  };
}

export function createApp(options: AppOptions) {
  const { ctx, adminToken, dispatcher, logger } = options;
  const app = new OpenAPIHono({ defaultHook: validationHook });
  const caller = callerOf(ctx, adminToken);
  const deps: RouteDeps = { ctx, dispatcher, principal: caller.principal };

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: "The admin token (the operator), a user's API token, or an installation's token",
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'session', {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'The session cookie POST /v1/session sets; requests that change something also send X-CSRF-Token',
  });
  app.use('*', requestLog(logger));
  app.use('*', durabilityGate(ctx, logger));
  app.use('*', bodyLimit());
  app.onError(onError(logger));
  app.notFound(notFound);

  const embeddable = (options.frameAncestors?.length ?? 0) > 0;
  app.route('/', healthRoutes());
  if (options.operations) app.route('/', options.operations);
  app.route('/', sessionRoutes({ ctx, adminToken, embeddable, session: caller.session }));
  app.route('/', organizationRoutes(deps));
  app.route('/', organizationAlertRoutes(deps));
  app.route('/', userRoutes(deps));
  app.route('/', integrationRoutes(deps));
  app.route('/', installationRoutes({ ...deps, credentials: caller.credentials }));
  app.route('/', grantedScopeRoutes(deps));
  app.route('/', eventRoutes(deps));
  app.route('/', componentRoutes(deps));
  app.route('/', dispatchRoutes(deps));
  app.route('/', deliveryRoutes(deps));
  app.route('/', troubledEndpointRoutes(deps));
  app.route('/', publicEndpointRoutes(deps));
  app.route('/', integrationPublicEndpointRoutes(deps));
  app.route('/', oauthRoutes(deps));
  app.route('/', streamRoutes(deps, { closing: options.closing }));
  app.route('/', recoveryRoutes(deps, options.recoveries));
  app.route('/', completionRoutes(deps));
  app.route('/', siteScriptRoutes(deps));
  app.route('/compat/gitbook', compatGitBookRoutes(deps));

  // A function: the server's URL is known only once it listens (server.ts sets ctx.publicUrl then).
  app.doc31('/v1/openapi.json', (c) =>
    apiDocumentConfig(options.version, ctx.publicUrl || ctx.apiUrl || new URL(c.req.url).origin),
  );
  // The reference page of that document (and /docs, which redirects to it).
  app.route('/', apiDocsRoutes());
  // Last: every other GET outside /v1 is the web app's.
  app.route(
    '/',
    dashboardFiles({
      dir: options.dashboardDir,
      extraOrigins: () => (ctx.publicUrl ? [new URL(ctx.publicUrl).origin] : []),
      frameAncestors: options.frameAncestors,
    }),
  );

  return app;
}
