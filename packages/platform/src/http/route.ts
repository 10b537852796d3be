/**
 * What the route modules (routes/) share: the documented error answers, JSON bodies and answers,
 * the bearer security, the document's tags, what createApp gives each module, and times in queries.
 */
import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { invalid } from '../errors/domain-error.js';
import type { Principal, ServiceContext } from '../types.js';
import { ErrorBody } from './schemas/common.js';

const ERRORS = {
  400: 'The request is not valid: the message says what to fix',
  401: 'No token, or a token that is not valid',
  403: 'The token may not do this',
  404: 'Something named in the path does not exist (or is not visible to this token)',
  409: 'It conflicts with what exists',
  413: 'The body is larger than the limit',
} as const;

const errorResponse = { content: { 'application/json': { schema: ErrorBody } } };

/** The documented error answers every route may give. */
export const errorResponses = Object.fromEntries(
  Object.entries(ERRORS).map(([status, description]) => [status, { description, ...errorResponse }]),
) as Record<keyof typeof ERRORS, { description: string } & typeof errorResponse>;

/**
 * A JSON request body, with an example a reader (and a client generator) can start from; typed by
 * the schema's input, so an example that the route would refuse does not compile.
 */
export function jsonBody<T extends z.ZodType>(schema: T, example: z.input<T>) {
  return { content: { 'application/json': { schema, example } }, required: true } as const;
}

/** A documented error answer beyond errorResponses (a 5xx of its own), with the same error body. */
export function errorAnswer(description: string) {
  return { description, ...errorResponse };
}

/** A JSON success answer. */
export function jsonAnswer<T extends z.ZodType>(schema: T, description = 'OK') {
  return { description, content: { 'application/json': { schema } } } as const;
}

/** An operation's security requirements: any one of them lets the caller in. */
type Security = Array<Record<string, string[]>>;

/** A caller's credentials: a bearer token, else the dashboard's session cookie (with X-CSRF-Token on changes). */
export const bearer: Security = [{ bearer: [] }, { session: [] }];

/** No credentials: the route is public (sign-in, public endpoints, published scripts). */
export const anyone: Security = [];

/** The session cookie alone (the dashboard's session routes). */
export const sessionCookie: Security = [{ session: [] }];

/** The groups of the OpenAPI document. */
export const TAGS = {
  directory: ['Organizations and users'],
  integrations: ['Integrations'],
  installations: ['Installations'],
  events: ['Events'],
  deliveries: ['Webhook deliveries'],
  sessions: ['Sessions'],
};

/** Each tag of TAGS, described for the document's readers (in the order a reader meets them). */
export const TAG_DESCRIPTIONS: Array<{ name: string; description: string }> = [
  {
    name: 'Sessions',
    description: "The dashboard's session: sign in with a token or a one-time code for a cookie, read it, sign out",
  },
  {
    name: 'Organizations and users',
    description:
      'What the operator syncs in (organizations, their spaces and sites, users and memberships, sign-in links) and what members read of it, with where alerts go',
  },
  {
    name: 'Integrations',
    description:
      'Publish integrations, list what may be installed, read one for its page, and its integration-wide public endpoints',
  },
  {
    name: 'Installations',
    description:
      'An integration installed in an organization, space or site: its configuration, status, token, components, dispatches, OAuth, completions, scripts and public endpoint',
  },
  {
    name: 'Events',
    description:
      'Platform events the operator sends: ingested, persisted, routed to the installations they concern, and traced',
  },
  {
    name: 'Webhook deliveries',
    description:
      'Signed deliveries to URLs: their attempts, the endpoints and subscriptions they go to, redelivery, recoveries, signing secrets and test events',
  },
];

/** What the route modules (routes/) are given by createApp. */
export interface RouteDeps {
  ctx: ServiceContext;
  dispatcher: Dispatcher;
  /** The caller: its bearer token, else its session cookie (whose CSRF token is checked on changes). */
  principal(c: Context): Promise<Principal>;
}

/** A time given as an ISO 8601 string or Unix milliseconds (`name` says where, in the error). */
export function parseTime(text: string | number, name: string): number {
  const value = typeof text === 'number' ? text : /^\d{1,15}$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(value) || value < 0) {
    throw invalid(
      'invalid_time',
      `${name} must be an ISO 8601 time (e.g. 2025-01-31T12:00:00Z) or Unix milliseconds, got ${JSON.stringify(text)}`,
    );
  }
  return value;
}
