/**
 * An organization's alert URL (`/v1/orgs/{org}/alert-url…`, decision 036): where alerts about its
 * installations (`delivery.failed`, `endpoint.disabled`, `endpoint.recovered`,
 * `integration.circuit_opened`) are POSTed, signed with the secret its admins read here.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import {
  alertSigningSecret,
  clearAlertUrl,
  getAlertUrl,
  rotateAlertSigningSecret,
  setAlertUrl,
} from '../../alerts/organization-alert-url.js';
import { bearer, errorResponses, jsonAnswer, jsonBody, type RouteDeps, TAGS } from '../route.js';
import { Id } from '../schemas/common.js';
import { SigningSecret } from '../schemas/deliveries.js';
import { AlertUrl, AlertUrlInput } from '../schemas/organizations.js';

const tags = TAGS.directory;
const params = z.object({ org: Id });

export function organizationAlertRoutes({ ctx, principal }: Pick<RouteDeps, 'ctx' | 'principal'>): OpenAPIHono {
  const app = new OpenAPIHono();

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/orgs/{org}/alert-url',
      operationId: 'getAlertUrl',
      summary: 'Where alerts about the organization’s installations go (members)',
      tags,
      security: bearer,
      request: { params },
      responses: { 200: jsonAnswer(AlertUrl), ...errorResponses },
    }),
    async (c) => c.json(await getAlertUrl(ctx, await principal(c), c.req.valid('param').org), 200),
  );

  app.openapi(
    createRoute({
      method: 'put',
      path: '/v1/orgs/{org}/alert-url',
      operationId: 'setAlertUrl',
      summary:
        'Set where alerts about the organization’s installations are POSTed, signed (admins); the operator’s PORTICO_ALERT_URL still gets them',
      tags,
      security: bearer,
      request: { params, body: jsonBody(AlertUrlInput, { url: 'https://ops.example.com/portico-alerts' }) },
      responses: { 200: jsonAnswer(AlertUrl), ...errorResponses },
    }),
    async (c) => c.json(await setAlertUrl(ctx, await principal(c), c.req.valid('param').org, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/orgs/{org}/alert-url',
      operationId: 'clearAlertUrl',
      summary: 'Clear the organization’s alert URL (admins); its signing secret is kept for the next one',
      tags,
      security: bearer,
      request: { params },
      responses: { 200: jsonAnswer(AlertUrl), ...errorResponses },
    }),
    async (c) => c.json(await clearAlertUrl(ctx, await principal(c), c.req.valid('param').org), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/orgs/{org}/alert-url/signing-secret',
      operationId: 'getAlertSigningSecret',
      summary:
        'The secret the organization’s alerts are signed with (X-Platform-Signature and the Standard Webhooks headers), and those still signing after a rotation (admins)',
      tags,
      security: bearer,
      request: { params },
      responses: { 200: jsonAnswer(SigningSecret), ...errorResponses },
    }),
    async (c) => c.json(await alertSigningSecret(ctx, await principal(c), c.req.valid('param').org), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/orgs/{org}/alert-url/signing-secret/rotate',
      operationId: 'rotateAlertSigningSecret',
      summary: 'Make a new alert signing secret current; the previous one keeps signing for 24 h (admins)',
      tags,
      security: bearer,
      request: { params },
      responses: { 200: jsonAnswer(SigningSecret), ...errorResponses },
    }),
    async (c) => c.json(await rotateAlertSigningSecret(ctx, await principal(c), c.req.valid('param').org), 200),
  );

  return app;
}
