/**
 * `createIntegration()` (spec 2.3): the integration as a fetch handler in the Workers module
 * shape. It answers the platform at `POST /v1` (spec 4.1), decodes the envelope and dispatches:
 * `fetch` events to the integration's `fetch`, `ui_render` to its components, and every other
 * event to `events[type]`. `GET /v1` describes what the integration handles.
 */
import { createPlatformApi } from './api-client.js';
import type { Component } from './component.js';
import { isContentKitComplete, validateContentKit } from './contentkit.js';
import {
  decodeEnvelope,
  ENVELOPE_VERSION,
  type Envelope,
  type EnvelopeLimits,
  SUPPORTED_VERSIONS,
} from './envelope.js';
import { EnvelopeError, ExposableError, errorResponse } from './errors.js';
import { answerWithOutput } from './output.js';
import type {
  ContentKitContext,
  Context,
  Environment,
  EventHandlers,
  FetchEvent,
  FetchHandler,
  PlatformEvent,
  RuntimeEvent,
  UIRenderEvent,
} from './types.js';

export interface IntegrationDefinition {
  /** Requests that reached the installation's public endpoint (spec 4.2). */
  fetch?: FetchHandler;
  // biome-ignore lint/suspicious/noExplicitAny: components of any props and state
  components?: Component<any, any>[];
  events?: EventHandlers;
  /** Envelope size limits (defaults: 1 MiB per JSON part, 10 MiB body). */
  limits?: Partial<EnvelopeLimits>;
}

/** What the integration handles, answered at `GET /v1` so the platform can route events. */
export interface IntegrationDescriptor {
  /** Who described it: the SDK (`GET /v1`), or the platform from a GitBook-dialect manifest. */
  runtime: 'portico' | 'gitbook';
  versions: readonly string[];
  fetch: boolean;
  events: string[];
  components: string[];
  /**
   * The installation's own events (its setup events) this version answered 406 to: the platform
   * stops owing them to its installations. Set by the platform for a GitBook-dialect version,
   * whose runtime cannot say what it handles.
   */
  declined?: string[];
}

/** The part of a Workers `ExecutionContext` the SDK uses. */
export interface ExecutionContextLike {
  waitUntil(promise: Promise<unknown>): void;
}

export interface Integration {
  fetch(request: Request, env?: unknown, ctx?: ExecutionContextLike): Promise<Response>;
  /**
   * Handles an envelope that is already decoded, as `fetch` does after decoding one: for hosts
   * that run the integration in their own process and hold the event and environment as objects
   * (no multipart encoding on either side).
   */
  dispatch(envelope: Envelope, env?: unknown, ctx?: ExecutionContextLike): Promise<Response>;
  readonly descriptor: IntegrationDescriptor;
}

export function createIntegration(definition: IntegrationDefinition = {}): Integration {
  const components = new Map<string, Component>();
  for (const component of definition.components ?? []) {
    if (component?.kind !== 'portico-component') {
      throw new TypeError('createIntegration: every entry of `components` must come from createComponent()');
    }
    if (components.has(component.componentId)) {
      throw new TypeError(`createIntegration: two components have the componentId "${component.componentId}"`);
    }
    components.set(component.componentId, component as Component);
  }
  const events = definition.events ?? {};
  const descriptor: IntegrationDescriptor = {
    runtime: 'portico',
    versions: SUPPORTED_VERSIONS,
    fetch: typeof definition.fetch === 'function',
    events: Object.keys(events).filter((type) => typeof events[type as keyof EventHandlers] === 'function'),
    components: [...components.keys()],
  };

  return {
    descriptor,
    // A remote integration's console output goes back with its answer when the platform asks (output.ts).
    fetch: (request, env, executionContext) => answerWithOutput(request, () => serve(request, env, executionContext)),
    dispatch: (envelope, env, executionContext) => handle(envelope, env, executionContext),
  };

  async function serve(
    request: Request,
    env: unknown,
    executionContext: ExecutionContextLike | undefined,
  ): Promise<Response> {
    const path = new URL(request.url).pathname;
    const version = /^\/(v\d+)\/?$/.exec(path)?.[1];
    if (version === undefined) {
      return errorResponse(
        404,
        'not_found',
        `the integration answers the platform at POST /${ENVELOPE_VERSION}, not at ${path}`,
      );
    }
    if (!SUPPORTED_VERSIONS.includes(version)) {
      return errorResponse(
        404,
        'unsupported_version',
        `envelope version ${version} is not supported; this integration speaks ${SUPPORTED_VERSIONS.join(', ')}`,
      );
    }
    if (request.method === 'GET') return Response.json(descriptor);
    if (request.method !== 'POST') {
      return errorResponse(405, 'method_not_allowed', `send envelopes with POST /${version}, not ${request.method}`);
    }

    let envelope: Envelope;
    try {
      envelope = await decodeEnvelope(request, definition.limits);
    } catch (error) {
      if (error instanceof ExposableError) return errorResponse(error.status, error.code, error.message);
      throw error;
    }
    return handle(envelope, env, executionContext);
  }

  async function handle(
    envelope: Envelope,
    env: unknown,
    executionContext: ExecutionContextLike | undefined,
  ): Promise<Response> {
    const { event, environment, body } = envelope;
    const context: Context = {
      environment,
      api: createPlatformApi(environment, apiBinding(env)),
      waitUntil(promise) {
        const guarded = Promise.resolve(promise).catch((error) =>
          console.error(`portico: background work of a "${event.type}" event failed:`, error),
        );
        executionContext?.waitUntil(guarded);
      },
    };
    try {
      switch (event.type) {
        case 'fetch':
          return await handleFetch(definition.fetch, event, body, context);
        case 'ui_render':
          return await handleRender(components, event, context);
        default:
          return await handleEvent(events, event, context);
      }
    } catch (error) {
      return failure(error, event);
    }
  }
}

async function handleFetch(
  handler: FetchHandler | undefined,
  event: FetchEvent,
  body: Uint8Array | undefined,
  context: Context,
): Promise<Response> {
  if (handler === undefined) {
    return errorResponse(
      404,
      'no_fetch_handler',
      'this integration does not serve requests: it has no `fetch` handler',
    );
  }
  const { method, url, headers } = (event.request ?? {}) as Partial<FetchEvent['request']>;
  if (typeof method !== 'string' || typeof url !== 'string' || !Array.isArray(headers)) {
    throw new EnvelopeError('a `fetch` event needs `request: { method, url, headers }`');
  }
  let request: Request;
  try {
    const hasBody = body !== undefined && method !== 'GET' && method !== 'HEAD';
    request = new Request(url, { method, headers, ...(hasBody ? { body: body as Uint8Array<ArrayBuffer> } : {}) });
  } catch (error) {
    throw new EnvelopeError(
      `the \`fetch\` event's request is not valid: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const response = await handler(request, context);
  if (!(response instanceof Response)) {
    throw new TypeError(`the fetch handler returned ${typeof response}, not a Response`);
  }
  return response;
}

async function handleRender(
  components: Map<string, Component>,
  event: UIRenderEvent,
  context: Context,
): Promise<Response> {
  const component = components.get(event.componentId);
  if (component === undefined) {
    const known = [...components.keys()];
    return errorResponse(
      404,
      'unknown_component',
      `this integration has no component "${event.componentId}"${known.length ? `; it has ${known.join(', ')}` : ''}`,
    );
  }
  const props = isObject(event.props) ? event.props : {};
  let state = isObject(event.state) ? event.state : (component.initialState?.(props) ?? {});
  const base = {
    componentId: component.componentId,
    props,
    ...(isObject(event.context) ? { context: event.context as ContentKitContext } : {}),
  };
  if (event.action !== undefined) {
    if (!isObject(event.action) || typeof event.action.action !== 'string') {
      throw new EnvelopeError('a `ui_render` action must be an object like { action: "name" }');
    }
    if (component.action === undefined) {
      return errorResponse(
        400,
        'no_action_handler',
        `the component "${component.componentId}" has no \`action\` handler`,
      );
    }
    const result: unknown = await component.action({ ...base, state }, event.action, context);
    if (!isObject(result)) {
      throw new TypeError(
        `the action of "${component.componentId}" returned ${typeof result}; return { state }, {} or { type: 'complete', returnValue }`,
      );
    }
    if (isContentKitComplete(result)) return Response.json({ type: 'complete', returnValue: result.returnValue });
    if (result.state !== undefined) state = result.state as Record<string, unknown>;
  }
  const element = await component.render({ ...base, state }, context);
  const problems = validateContentKit(element);
  if (problems.length > 0) {
    const list = problems.map((p) => `${p.path || '(root)'}: ${p.message}`).join('; ');
    console.error(`portico: the component "${component.componentId}" rendered an invalid tree: ${list}`);
    return errorResponse(
      500,
      'invalid_contentkit',
      `the component "${component.componentId}" rendered an invalid tree: ${list}`,
    );
  }
  return Response.json({ element, state });
}

async function handleEvent(events: EventHandlers, event: PlatformEvent, context: Context): Promise<Response> {
  const handler = events[event.type as keyof EventHandlers] as
    | ((event: RuntimeEvent, context: Context) => void | Promise<void>)
    | undefined;
  if (typeof handler !== 'function') {
    return errorResponse(404, 'event_not_handled', `this integration has no handler for "${event.type}" events`);
  }
  await handler(event as RuntimeEvent, context);
  return new Response(null, { status: 204 });
}

function failure(error: unknown, event: PlatformEvent): Response {
  if (error instanceof ExposableError) return errorResponse(error.status, error.code, error.message);
  console.error(`portico: the integration failed while handling a "${event.type}" event:`, error);
  return errorResponse(500, 'integration_error', `the integration failed while handling a "${event.type}" event`);
}

/** A Workers-style service binding to the platform API (`env.PORTICO_API`), when the host gives one. */
function apiBinding(env: unknown): ((url: string, init: RequestInit) => Promise<Response>) | undefined {
  const binding = isObject(env) ? env.PORTICO_API : undefined;
  if (isObject(binding) && typeof binding.fetch === 'function') {
    const fetcher = binding.fetch as (url: string, init: RequestInit) => Promise<Response>;
    return (url, init) => fetcher.call(binding, url, init);
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type { Environment };
