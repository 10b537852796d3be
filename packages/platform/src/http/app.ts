/**
 * The HTTP API (DESIGN.md's contract table): Hono with route definitions that validate each
 * request and generate the OpenAPI 3.1 document at /v1/openapi.json, so the two cannot drift.
 * Errors are `{ error: { code, message } }` with a 4xx/5xx status.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Logger } from 'pino';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { principalOf } from '../services/auth.js';
import type { ServiceContext } from '../services/context.js';
import { compatGitBookRoutes } from './compat-gitbook-routes.js';
import { completionRoutes } from './completion-routes.js';
import { dashboardFiles } from './dashboard-files.js';
import { bodyLimit } from './middleware/body-limit.js';
import { callerOf } from './middleware/credentials.js';
import { durabilityGate } from './middleware/durability.js';
import { notFound } from './middleware/not-found.js';
import { requestLog } from './middleware/request-log.js';
import { validationHook } from './middleware/validation.js';
import { oauthStartRoutes } from './oauth-start-routes.js';
import { onError } from './on-error.js';
import { recoveryRoutes } from './recovery-routes.js';
import type { RouteDeps } from './route.js';
import { componentRoutes } from './routes/components.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { dispatchRoutes } from './routes/dispatches.js';
import { eventRoutes } from './routes/events.js';
import { healthRoutes } from './routes/health.js';
import { installationRoutes } from './routes/installations.js';
import { integrationRoutes } from './routes/integrations.js';
import { organizationRoutes } from './routes/organizations.js';
import { publicEndpointRoutes } from './routes/public-endpoints.js';
import { sessionRoutes } from './routes/sessions.js';
import { userRoutes } from './routes/users.js';
import { streamRoutes } from './stream-routes.js';

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

const _tags = {
  directory: ['Organizations and users'],
  integrations: ['Integrations'],
  installations: ['Installations'],
  events: ['Events'],
  deliveries: ['Webhook deliveries'],
};

export function createApp(options: AppOptions) {
  const { ctx, adminToken, dispatcher } = options;
  const app = new OpenAPIHono({ defaultHook: validationHook });
  const caller = callerOf(ctx, adminToken);
  const { credentials, principal } = caller;
  const deps: RouteDeps = { ctx, dispatcher, principal };

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  app.use('*', requestLog(options.logger));
  app.use('*', durabilityGate(ctx, options.logger));
  app.use('*', bodyLimit());
  app.onError(onError(options.logger));
  app.notFound(notFound);

  app.route('/', healthRoutes());
  app.route(
    '/',
    sessionRoutes({
      ctx,
      adminToken,
      embeddable: (options.frameAncestors?.length ?? 0) > 0,
      sessionOf: async (c) => {
        const session = await caller.session(c);
        if (session === undefined) return undefined;
        return { principal: await principalOf(ctx, session.credentials), csrfToken: session.csrfToken };
      },
    }),
  );

  app.route('/', organizationRoutes(deps));
  app.route('/', userRoutes(deps));

  app.route('/', integrationRoutes(deps));

  app.route('/', installationRoutes({ ...deps, credentials }));

  app.route('/', eventRoutes(deps));

  app.route('/', componentRoutes(deps));
  app.route('/', dispatchRoutes(deps));
  app.route('/', deliveryRoutes(deps));

  app.route('/', publicEndpointRoutes(deps));

  oauthStartRoutes(app, deps);
  streamRoutes(app, deps, { closing: options.closing });
  recoveryRoutes(app, deps, options.recoveries);
  completionRoutes(app, deps);
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
