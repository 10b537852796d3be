/**
 * `createTestPlatform()`: runs an integration in-process against a simulated platform. Events,
 * component renders and public-endpoint requests reach it as real envelopes through its own
 * `fetch`, exactly as the platform sends them; its API calls and public endpoint are served by a
 * real HTTP server on 127.0.0.1; its outbound requests and configuration writes are recorded.
 */
import { randomBytes } from 'node:crypto';
import { configurationSchema, type Manifest } from '@portico/manifest';
import {
  type Configuration,
  type ContentKitAction,
  type ContentKitRoot,
  type Environment,
  encodeEnvelope,
  type InstallationStatus,
  type InstallationTarget,
  type Integration,
  type PlatformEvent,
  type RuntimeEvent,
} from '@portico/runtime';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buttonLabels, findButton } from './find-button.js';
import { installFetchRecorder, type RecordedRequest, runRecorded } from './outbound.js';
import { startPlatformServer } from './simulated-platform-server.js';

export interface TestPlatformOptions {
  /** The integration's manifest: its name, secrets and configuration schemas are used. */
  manifest?: Manifest;
  /** Where the installation is (default `organization`). */
  target?: InstallationTarget;
  configuration?: Configuration;
  /** Values of the manifest's secrets, as `environment.secrets`. */
  secrets?: Record<string, string>;
  installationId?: string;
  organization?: string;
  space?: string;
  site?: string;
  /**
   * For a space or site installation: its organization installation's `account` configuration,
   * as `environment.installation.configuration` (default `{}`).
   */
  organizationConfiguration?: Configuration;
}

export interface RenderResult {
  componentId: string;
  props: Record<string, unknown>;
  element: ContentKitRoot;
  state: Record<string, unknown>;
}

export interface OAuthFlowOptions {
  /** Plays the user at the provider: given the authorization URL, answers the URL the provider redirects back to. */
  authorize(authorizationUrl: URL): Promise<string | URL>;
  /** The public-endpoint path of the OAuth handler (default `/oauth`). */
  path?: string;
}

/** Each new event a test sends without an eventId gets the next one of these. */
type NewEvent = {
  [T in RuntimeEvent['type']]: Omit<Extract<RuntimeEvent, { type: T }>, 'eventId'> & { eventId?: string };
}[RuntimeEvent['type']];

export class TestPlatform {
  /** Every configuration patch the integration wrote through the API, in order. */
  readonly configurationWrites: Configuration[] = [];
  /** Every request the integration made to the platform API. */
  readonly apiRequests: { method: string; path: string; body: string }[] = [];
  /** Every other request the integration made with fetch. */
  readonly outboundRequests: RecordedRequest[] = [];
  /** Answers of every dispatch, as status codes, in order. */
  readonly dispatches: { type: string; status: number }[] = [];

  private configurationValue: Configuration;
  private statusValue: InstallationStatus = 'pending';
  private readonly pending = new Set<Promise<unknown>>();
  private eventCount = 0;
  private readonly installationKey = randomBytes(32).toString('base64url');
  private readonly validate: ((value: unknown) => boolean) & {
    errors?: { instancePath: string; message?: string }[] | null;
  };

  private constructor(
    private readonly integration: Integration,
    private readonly options: TestPlatformOptions & { installationId: string; target: InstallationTarget },
    readonly apiUrl: string,
    readonly token: string,
    private readonly closeServer: () => Promise<void>,
    private readonly releaseRecorder: () => void,
  ) {
    this.configurationValue = { ...options.configuration };
    const level = options.target === 'organization' ? 'account' : 'site';
    this.validate = new Ajv2020({ allErrors: true, strict: false }).compile(
      configurationSchema(options.manifest ?? {}, level),
    );
    this.statusValue = this.validate(this.configurationValue) ? 'active' : 'pending';
  }

  static async create(integration: Integration, options: TestPlatformOptions = {}): Promise<TestPlatform> {
    const resolved = {
      ...options,
      installationId: options.installationId ?? 'inst_test',
      target: options.target ?? 'organization',
    };
    const token = `test_${randomBytes(16).toString('hex')}`;
    let platform: TestPlatform | undefined;
    const server = await startPlatformServer({
      token,
      installationId: resolved.installationId,
      getInstallation: () => platform?.installationInfo(),
      patchConfiguration: (patch) => platform?.applyConfiguration(patch),
      publicEndpoint: (request) => (platform as TestPlatform).dispatchPublic(request),
      onApiRequest: (method, path, body) => platform?.apiRequests.push({ method, path, body }),
    });
    platform = new TestPlatform(integration, resolved, server.url, token, server.close, installFetchRecorder());
    return platform;
  }

  get configuration(): Configuration {
    return structuredClone(this.configurationValue);
  }

  get status(): InstallationStatus {
    return this.statusValue;
  }

  /** The installation's public endpoint, as `environment.integration.urls.publicEndpoint`. */
  get publicEndpoint(): string {
    return `${this.apiUrl}/v1/installations/${encodeURIComponent(this.options.installationId)}/public`;
  }

  /** The environment the next envelope carries. */
  get environment(): Environment {
    const o = this.options;
    const base = {
      apiEndpoint: this.apiUrl,
      apiTokens: { installation: this.token },
      integration: { name: o.manifest?.name ?? 'test-integration', urls: { publicEndpoint: this.publicEndpoint } },
      id: o.installationId,
      status: this.statusValue,
      configuration: this.configuration,
      urls: { publicEndpoint: this.publicEndpoint },
      secrets: { ...o.secrets },
      installationKey: this.installationKey,
      organization: o.organization ?? o.manifest?.organization ?? 'test-org',
      externalIds: [],
    };
    const space = o.space ?? 'space_test';
    const site = o.site ?? 'site_test';
    const parent = {
      id: 'inst_parent',
      status: 'active' as const,
      configuration: structuredClone(o.organizationConfiguration ?? {}),
      space_selection: { mode: 'selected' as const, spaces: o.target === 'space' ? [space] : [] },
      site_selection: { mode: 'selected' as const, sites: o.target === 'site' ? [site] : [] },
      externalIds: [],
      urls: { publicEndpoint: `${this.apiUrl}/v1/installations/inst_parent/public` },
    };
    if (o.target === 'space') {
      return { ...base, target: 'space', space, parentInstallationId: parent.id, installation: parent };
    }
    if (o.target === 'site') {
      return { ...base, target: 'site', site, parentInstallationId: parent.id, installation: parent };
    }
    return {
      ...base,
      target: 'organization',
      space_selection: { mode: 'selected', spaces: [] },
      site_selection: { mode: 'selected', sites: [] },
    };
  }

  /** Sends a runtime event (spec 6.1) and answers the integration's response. */
  async event(event: NewEvent): Promise<Response> {
    return this.dispatch({ ...event, eventId: event.eventId ?? this.nextEventId() } as PlatformEvent);
  }

  /** Sends a request to the installation's public endpoint over HTTP: `path` is relative to it. */
  fetch(path: string, init?: RequestInit): Promise<Response> {
    const url = /^https?:/.test(path)
      ? path
      : `${this.publicEndpoint}${path.startsWith('/') || path === '' ? path : `/${path}`}`;
    return fetch(url, { redirect: 'manual', ...init });
  }

  /** Renders a component (ui_render), as the platform does for a page or the configuration screen. */
  render(
    componentId: string,
    input: { props?: Record<string, unknown>; state?: Record<string, unknown> } = {},
  ): Promise<RenderResult> {
    return this.renderWith(componentId, input);
  }

  /** Runs a component action (e.g. a button's onPress), then renders; `state` is the state to act on. */
  action(
    componentId: string,
    action: ContentKitAction,
    input: { props?: Record<string, unknown>; state?: Record<string, unknown> } = {},
  ): Promise<RenderResult> {
    return this.renderWith(componentId, { ...input, action });
  }

  /** Presses the button labelled `label` in a rendered component, as a user would. */
  async press(rendered: RenderResult, label: string): Promise<RenderResult> {
    const button = findButton(rendered.element, label);
    if (button === undefined) {
      throw new Error(
        `no button "${label}" in ${rendered.componentId}; its buttons are: ${buttonLabels(rendered.element).join(', ') || 'none'}`,
      );
    }
    return this.action(rendered.componentId, button.onPress, { props: rendered.props, state: rendered.state });
  }

  /**
   * Runs an OAuth flow through the public endpoint: opens `/oauth`, follows the redirect to the
   * provider through `authorize`, and opens the callback it answers. Answers the final response.
   */
  async oauth(flow: OAuthFlowOptions): Promise<Response> {
    const start = await this.fetch(flow.path ?? '/oauth');
    const location = start.headers.get('location');
    if (start.status !== 302 || location === null) {
      throw new Error(
        `opening ${flow.path ?? '/oauth'} answered ${start.status}, not a redirect to the provider: ${await start.text()}`,
      );
    }
    const callback = new URL(await flow.authorize(new URL(location)));
    if (!callback.href.startsWith(this.publicEndpoint)) {
      throw new Error(`the provider redirected to ${callback.href}, which is not this installation's public endpoint`);
    }
    return this.fetch(callback.href);
  }

  /** Waits for the work the integration left running with `context.waitUntil`. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  async close(): Promise<void> {
    await this.settled();
    this.releaseRecorder();
    await this.closeServer();
  }

  private async renderWith(
    componentId: string,
    input: { props?: Record<string, unknown>; state?: Record<string, unknown>; action?: ContentKitAction },
  ): Promise<RenderResult> {
    const props = input.props ?? {};
    const response = await this.dispatch({
      type: 'ui_render',
      eventId: this.nextEventId(),
      componentId,
      props,
      ...(input.state !== undefined ? { state: input.state } : {}),
      ...(input.action !== undefined ? { action: input.action } : {}),
    });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`rendering ${componentId} answered ${response.status}: ${body}`);
    const { element, state } = JSON.parse(body) as { element: ContentKitRoot; state: Record<string, unknown> };
    return { componentId, props, element, state };
  }

  private async dispatchPublic(request: Request): Promise<Response> {
    const body =
      request.method === 'GET' || request.method === 'HEAD' ? undefined : new Uint8Array(await request.arrayBuffer());
    return this.dispatch(
      {
        type: 'fetch',
        eventId: this.nextEventId(),
        request: { method: request.method, url: request.url, headers: [...request.headers] },
      },
      body,
    );
  }

  private async dispatch(event: PlatformEvent, body?: Uint8Array): Promise<Response> {
    const encoded = await encodeEnvelope({ event, environment: this.environment, ...(body ? { body } : {}) });
    const request = new Request('http://integration.internal/v1', {
      method: 'POST',
      headers: encoded.headers,
      body: encoded.body as Uint8Array<ArrayBuffer>,
    });
    const recorder = {
      record: (outbound: RecordedRequest) => {
        if (!outbound.url.startsWith(this.apiUrl)) this.outboundRequests.push(outbound);
      },
    };
    const executionContext = {
      waitUntil: (promise: Promise<unknown>) => {
        const tracked = promise.finally(() => this.pending.delete(tracked));
        this.pending.add(tracked);
      },
    };
    const response = await runRecorded(recorder, () => this.integration.fetch(request, {}, executionContext));
    this.dispatches.push({ type: event.type, status: response.status });
    return response;
  }

  private installationInfo() {
    return {
      id: this.options.installationId,
      integration: this.options.manifest?.name ?? 'test-integration',
      target: this.targetInfo(),
      status: this.statusValue,
      configuration: this.configuration,
      urls: { publicEndpoint: this.publicEndpoint },
    };
  }

  private targetInfo(): Record<string, unknown> {
    const o = this.options;
    if (o.target === 'space') return { type: 'space', space: o.space ?? 'space_test' };
    if (o.target === 'site') return { type: 'site', site: o.site ?? 'site_test' };
    return { type: 'organization', organization: o.organization ?? o.manifest?.organization ?? 'test-org' };
  }

  /** Merges a patch as the platform does: `null` removes a property; the result is stored even when invalid. */
  private applyConfiguration(patch: Configuration) {
    this.configurationWrites.push(structuredClone(patch));
    const next = { ...this.configurationValue };
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete next[key];
      else next[key] = value;
    }
    this.configurationValue = next;
    const valid = this.validate(next);
    if (this.statusValue !== 'paused') this.statusValue = valid ? 'active' : 'pending';
    const errors = valid
      ? []
      : (this.validate.errors ?? []).map((e) => ({
          path: e.instancePath.replace(/^\//, '').replaceAll('/', '.'),
          message: e.message ?? 'invalid',
        }));
    return { status: this.statusValue, configuration: this.configuration, errors };
  }

  private nextEventId(): string {
    return `evt_test_${++this.eventCount}`;
  }
}

/** Starts a simulated platform for `integration`; close it when the test is done. */
export function createTestPlatform(integration: Integration, options: TestPlatformOptions = {}): Promise<TestPlatform> {
  return TestPlatform.create(integration, options);
}
