import { afterEach, describe, expect, it, vi } from 'vitest';
import { createComponent } from './component.js';
import { ExposableError } from './errors.js';
import { createIntegration } from './integration.js';
import { envelopeRequest, environment, rawMultipart } from './test-support/envelopes.js';
import type { Context, FetchEvent, PlatformEvent } from './types.js';

afterEach(() => vi.restoreAllMocks());

const contentUpdated: PlatformEvent = {
  type: 'space_content_updated',
  eventId: 'evt_1',
  spaceId: 's1',
  revisionId: 'r1',
};

describe('the /v1 endpoint', () => {
  const integration = createIntegration({ events: { space_content_updated: async () => {} } });

  it('describes what the integration handles at GET /v1', async () => {
    const response = await integration.fetch(new Request('http://x/v1'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      runtime: 'portico',
      versions: ['v1'],
      fetch: false,
      events: ['space_content_updated'],
      components: [],
    });
  });

  it('answers an unknown version with 404 naming the supported ones', async () => {
    const response = await integration.fetch(await envelopeRequest(contentUpdated, { path: '/v2' }));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        code: 'unsupported_version',
        message: 'envelope version v2 is not supported; this integration speaks v1',
      },
    });
  });

  it('answers other paths with 404 and other methods with 405', async () => {
    const notFound = await integration.fetch(new Request('http://x/hello', { method: 'POST' }));
    expect(notFound.status).toBe(404);
    expect((await notFound.json()).error.message).toMatch(/answers the platform at POST \/v1, not at \/hello/);
    const wrongMethod = await integration.fetch(new Request('http://x/v1', { method: 'PUT' }));
    expect(wrongMethod.status).toBe(405);
  });

  it('answers a malformed envelope with 400 and the reason', async () => {
    const response = await integration.fetch(rawMultipart([{ name: 'environment', body: '{}' }]));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { code: 'invalid_envelope', message: 'the envelope has no `event` part' },
    });
  });
});

describe('events', () => {
  it('calls events[type] with the event and a context holding the environment', async () => {
    const seen: [PlatformEvent, Context][] = [];
    const integration = createIntegration({
      events: { space_content_updated: async (event, context) => void seen.push([event, context]) },
    });
    const response = await integration.fetch(await envelopeRequest(contentUpdated));
    expect(response.status).toBe(204);
    expect(seen[0]?.[0]).toEqual(contentUpdated);
    expect(seen[0]?.[1].environment).toEqual(environment);
  });

  it('dispatch() handles a decoded envelope as fetch() handles the encoded one', async () => {
    const seen: unknown[] = [];
    const integration = createIntegration({
      events: { space_content_updated: (event, context) => void seen.push([event, context.environment]) },
    });
    const event = { type: 'space_content_updated', eventId: 'e1', spaceId: 's', revisionId: 'r' } as const;
    const viaFetch = await integration.fetch(await envelopeRequest(event));
    const viaDispatch = await integration.dispatch({ event, environment });
    expect([viaFetch.status, viaDispatch.status]).toEqual([204, 204]);
    expect(seen[1]).toEqual(seen[0]);
    const missing = await integration.dispatch({ event: { ...event, type: 'space_view' } as never, environment });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'event_not_handled' } });
  });

  it('answers an event without a handler with 404 event_not_handled, apart from failures', async () => {
    const response = await createIntegration({}).fetch(await envelopeRequest(contentUpdated));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        code: 'event_not_handled',
        message: 'this integration has no handler for "space_content_updated" events',
      },
    });
  });

  it('turns an ExposableError into its status and { error: { code, message } }', async () => {
    const integration = createIntegration({
      events: {
        space_content_updated: () => {
          throw new ExposableError('the revision is not ready yet', 409);
        },
      },
    });
    const response = await integration.fetch(await envelopeRequest(contentUpdated));
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ error: { code: 'conflict', message: 'the revision is not ready yet' } });
  });

  it('turns any other error into a 500 that reveals no stack trace or secret', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const integration = createIntegration({
      events: {
        space_content_updated: (_event, context) => {
          throw new Error(`could not call the API with ${context.environment.secrets.API_KEY}`);
        },
      },
    });
    const response = await integration.fetch(await envelopeRequest(contentUpdated));
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      error: {
        code: 'integration_error',
        message: 'the integration failed while handling a "space_content_updated" event',
      },
    });
    expect(text).not.toMatch(/sk_super_secret|at .*\.ts|Error:/);
    expect(logged).toHaveBeenCalled();
  });

  it('hands waitUntil work to the execution context and answers before it finishes', async () => {
    let finish: () => void = () => {};
    const work = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let done = false;
    const waited: Promise<unknown>[] = [];
    const integration = createIntegration({
      events: {
        space_content_updated: (_e, context) =>
          context.waitUntil(
            work.then(() => {
              done = true;
            }),
          ),
      },
    });
    const response = await integration.fetch(
      await envelopeRequest(contentUpdated),
      {},
      { waitUntil: (p) => waited.push(p) },
    );
    expect(response.status).toBe(204);
    expect(done).toBe(false);
    finish();
    await Promise.all(waited);
    expect(done).toBe(true);
  });

  it('logs a failure of waitUntil work instead of crashing', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const waited: Promise<unknown>[] = [];
    const integration = createIntegration({
      events: { space_content_updated: (_e, context) => context.waitUntil(Promise.reject(new Error('later'))) },
    });
    await integration.fetch(await envelopeRequest(contentUpdated), {}, { waitUntil: (p) => waited.push(p) });
    await Promise.all(waited);
    expect(logged.mock.calls[0]?.[0]).toMatch(/background work of a "space_content_updated" event failed/);
  });
});

describe('the platform API from an event handler', () => {
  it("goes through the host's service binding (env.PORTICO_API) when there is one", async () => {
    const seen: string[] = [];
    // Called as fetch is (a Workers binding takes both forms): the SDK passes the URL and the init.
    const binding = {
      fetch: async (input: RequestInfo, init?: RequestInit) => {
        const request = new Request(input, init);
        seen.push(`${request.method} ${request.url} ${request.headers.get('authorization')}`);
        return Response.json({
          id: 'inst_1',
          status: 'active',
          configuration: {},
          integration: 'demo',
          target: {},
          urls: { publicEndpoint: '' },
        });
      },
    };
    const integration = createIntegration({
      events: { space_content_updated: async (_e, context) => void (await context.api.getInstallation()) },
    });
    expect((await integration.fetch(await envelopeRequest(contentUpdated), { PORTICO_API: binding })).status).toBe(204);
    expect(seen).toEqual(['GET http://127.0.0.1:9/v1/installations/inst_1 Bearer tok_secret_value']);
  });
});

describe('fetch events (the public endpoint)', () => {
  const request = (method: string, headers: [string, string][] = []): FetchEvent => ({
    type: 'fetch',
    eventId: 'evt_f',
    request: { method, url: 'https://portico.test/v1/installations/inst_1/public/hooks?x=1&y=%20', headers },
  });

  it('rebuilds the request exactly and returns the response as it is', async () => {
    let received: { method: string; url: string; headers: Record<string, string>; body: Uint8Array } | undefined;
    const integration = createIntegration({
      async fetch(req) {
        received = {
          method: req.method,
          url: req.url,
          headers: Object.fromEntries(req.headers),
          body: new Uint8Array(await req.arrayBuffer()),
        };
        return new Response(new Uint8Array([0, 1, 254, 255]), {
          status: 201,
          headers: { 'content-type': 'application/octet-stream', 'x-reply': 'yes' },
        });
      },
    });
    const body = new Uint8Array([255, 0, 13, 10, 0xc3]);
    const response = await integration.fetch(
      await envelopeRequest(
        request('PUT', [
          ['content-type', 'application/x-custom'],
          ['x-signature', 'abc'],
        ]),
        { body },
      ),
    );
    expect(received).toEqual({
      method: 'PUT',
      url: 'https://portico.test/v1/installations/inst_1/public/hooks?x=1&y=%20',
      headers: { 'content-type': 'application/x-custom', 'x-signature': 'abc' },
      body,
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-reply')).toBe('yes');
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array([0, 1, 254, 255]));
  });

  it('passes a GET without a body', async () => {
    const integration = createIntegration({ fetch: (req) => new Response(`${req.method} ${req.body === null}`) });
    const response = await integration.fetch(await envelopeRequest(request('GET')));
    expect(await response.text()).toBe('GET true');
  });

  it('answers 404 when the integration has no fetch handler', async () => {
    const response = await createIntegration({}).fetch(await envelopeRequest(request('POST')));
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('no_fetch_handler');
  });

  it('answers 400 for a fetch event without a request', async () => {
    const integration = createIntegration({ fetch: () => new Response('x') });
    const response = await integration.fetch(
      await envelopeRequest({ type: 'fetch', eventId: 'e' } as unknown as PlatformEvent),
    );
    expect(response.status).toBe(400);
  });

  it('answers 500 when the handler returns something other than a Response', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const integration = createIntegration({ fetch: (() => ({ status: 200 })) as never });
    expect((await integration.fetch(await envelopeRequest(request('POST')))).status).toBe(500);
  });
});

describe('ui_render', () => {
  const counter = createComponent<{ step?: number }, { count: number }>({
    componentId: 'counter',
    initialState: (props) => ({ count: props.step ?? 0 }),
    action: async (element, action) => {
      if (action.action === 'increment') return { state: { count: element.state.count + (element.props.step ?? 1) } };
      return {};
    },
    render: (element) => ({
      type: 'block',
      children: [
        { type: 'text', children: `Count: ${element.state.count}` },
        { type: 'button', label: 'Add', onPress: { action: 'increment' } },
      ],
    }),
  });
  const integration = createIntegration({ components: [counter] });
  const render = (fields: Record<string, unknown>) =>
    envelopeRequest({ type: 'ui_render', eventId: 'evt_r', componentId: 'counter', ...fields } as PlatformEvent);

  it('renders with the initial state from the props', async () => {
    const response = await integration.fetch(await render({ props: { step: 5 } }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      element: {
        type: 'block',
        children: [
          { type: 'text', children: 'Count: 5' },
          { type: 'button', label: 'Add', onPress: { action: 'increment' } },
        ],
      },
      state: { count: 5 },
    });
  });

  it('runs the action on the given state, then renders the new state', async () => {
    const response = await integration.fetch(
      await render({ props: { step: 2 }, state: { count: 10 }, action: { action: 'increment' } }),
    );
    const body = await response.json();
    expect(body.state).toEqual({ count: 12 });
    expect(body.element.children[0]).toEqual({ type: 'text', children: 'Count: 12' });
  });

  it('keeps the state when the action returns {}', async () => {
    const response = await integration.fetch(await render({ state: { count: 3 }, action: { action: 'unknown' } }));
    expect((await response.json()).state).toEqual({ count: 3 });
  });

  it('answers 404 naming the components for an unknown componentId', async () => {
    const response = await integration.fetch(
      await envelopeRequest({ type: 'ui_render', eventId: 'e', componentId: 'nope' } as PlatformEvent),
    );
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { code: 'unknown_component', message: 'this integration has no component "nope"; it has counter' },
    });
  });

  it('answers 500 with the path of the bad node when render returns an invalid tree', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const broken = createIntegration({
      components: [
        createComponent({
          componentId: 'broken',
          render: () =>
            ({ type: 'block', children: [{ type: 'button', label: 'Go', onPress: { act: 'x' } }] }) as never,
        }),
      ],
    });
    const response = await broken.fetch(
      await envelopeRequest({ type: 'ui_render', eventId: 'e', componentId: 'broken' } as PlatformEvent),
    );
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: {
        code: 'invalid_contentkit',
        message:
          'the component "broken" rendered an invalid tree: children[0].onPress.action: must be a non-empty string',
      },
    });
  });

  it('answers { type: complete, returnValue } when the action ends the interaction, without rendering', async () => {
    const render = vi.fn(() => ({ type: 'modal' as const, children: [] }));
    const wizard = createIntegration({
      components: [
        createComponent({
          componentId: 'wizard',
          action: (_element, action) => {
            if (action.action === 'finish') return { type: 'complete', returnValue: { name: action.name } };
            return {};
          },
          render,
        }),
      ],
    });
    const response = await wizard.fetch(
      await envelopeRequest({
        type: 'ui_render',
        eventId: 'e',
        componentId: 'wizard',
        state: {},
        action: { action: 'finish', name: 'Ada' },
      } as PlatformEvent),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ type: 'complete', returnValue: { name: 'Ada' } });
    expect(render).not.toHaveBeenCalled();
  });

  it('gives the event’s context to action and render', async () => {
    const seen: unknown[] = [];
    const where = createIntegration({
      components: [
        createComponent({
          componentId: 'where',
          action: (element) => {
            seen.push(element.context);
            return {};
          },
          render: (element) => {
            seen.push(element.context);
            return { type: 'block', children: [{ type: 'text', children: element.context?.type ?? 'nowhere' }] };
          },
        }),
      ],
    });
    const context = { type: 'document', organizationId: 'acme', spaceId: 'docs', editable: true, theme: 'light' };
    const response = await where.fetch(
      await envelopeRequest({
        type: 'ui_render',
        eventId: 'e',
        componentId: 'where',
        action: { action: 'look' },
        context,
      } as PlatformEvent),
    );
    expect((await response.json()).element.children[0].children).toBe('document');
    expect(seen).toEqual([context, context]);
  });

  it('answers 400 for an action on a component without an action handler', async () => {
    const still = createIntegration({
      components: [createComponent({ componentId: 'still', render: () => ({ type: 'block', children: [] }) })],
    });
    const response = await still.fetch(
      await envelopeRequest({
        type: 'ui_render',
        eventId: 'e',
        componentId: 'still',
        action: { action: 'x' },
      } as PlatformEvent),
    );
    expect(response.status).toBe(400);
  });
});

describe('definitions', () => {
  it('refuses two components with one componentId and components not made by createComponent', () => {
    const a = createComponent({ componentId: 'a', render: () => ({ type: 'block', children: [] }) });
    expect(() => createIntegration({ components: [a, a] })).toThrow(/two components have the componentId "a"/);
    expect(() => createIntegration({ components: [{ componentId: 'x' } as never] })).toThrow(
      /must come from createComponent/,
    );
  });

  it('refuses a component without an id or a render function', () => {
    expect(() => createComponent({ componentId: '', render: () => ({ type: 'block', children: [] }) })).toThrow(
      /componentId/,
    );
    expect(() => createComponent({ componentId: 'x' } as never)).toThrow(/`render` must be a function/);
  });
});
