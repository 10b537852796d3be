/**
 * The webhook integration (spec 1, 2.9, 6.2), written with the SDK like any other integration.
 * A space or site installation forwards the events its configuration selects to its URL: the
 * platform's delivery engine signs each delivery and retries it. The configuration component
 * edits the URL and the events, shows and rotates the signing secret, sends a test event, and
 * lists the last deliveries.
 */
import {
  type ContentKitElement,
  type Context,
  createComponent,
  createIntegration,
  type PageFeedbackEvent,
  type SiteViewEvent,
  type SpaceContentUpdatedEvent,
} from '@portico/runtime';

type WebhookEvent = SpaceContentUpdatedEvent | SiteViewEvent | PageFeedbackEvent;

/** The events each kind of installation can select (spec 6.2). */
export const SELECTABLE: Record<'space' | 'site', WebhookEvent['type'][]> = {
  space: ['space_content_updated'],
  site: ['site_view', 'page_feedback'],
};

const LABELS: Record<WebhookEvent['type'], string> = {
  space_content_updated: 'Content updates',
  site_view: 'Site views',
  page_feedback: 'Page feedback',
};

/** Exactly the spec 2.9 payload: eventId, type, installationId and the type's fields. */
export function payloadOf(event: WebhookEvent, installationId: string): Record<string, unknown> {
  switch (event.type) {
    case 'space_content_updated':
      return {
        eventId: event.eventId,
        type: event.type,
        spaceId: event.spaceId,
        installationId,
        revisionId: event.revisionId,
      };
    case 'site_view':
      return {
        eventId: event.eventId,
        type: event.type,
        siteId: event.siteId,
        installationId,
        visitor: event.visitor,
        url: event.url,
        referrer: event.referrer,
      };
    case 'page_feedback':
      return {
        eventId: event.eventId,
        type: event.type,
        siteId: event.siteId,
        spaceId: event.spaceId,
        installationId,
        pageId: event.pageId,
        feedback: event.feedback,
        visitor: event.visitor,
        url: event.url,
        referrer: event.referrer,
      };
  }
}

async function requestDelivery(
  context: Context,
  body: { url: string; eventId: string; type: string; payload: Record<string, unknown> },
) {
  const response = await context.api.request(
    `/v1/installations/${encodeURIComponent(context.environment.id)}/deliveries`,
    {
      method: 'POST',
      body: JSON.stringify(body),
    },
  );
  if (!response.ok) throw new Error(`the platform refused the delivery (${response.status}): ${await response.text()}`);
}

async function forward(event: WebhookEvent, context: Context): Promise<void> {
  const environment = context.environment;
  if (environment.target === 'organization') return; // only space and site installations deliver
  if (!SELECTABLE[environment.target].includes(event.type)) return;
  const { url } = environment.configuration;
  if (typeof url !== 'string' || url === '' || environment.configuration[event.type] !== true) return;
  await requestDelivery(context, {
    url,
    eventId: event.eventId,
    type: event.type,
    payload: payloadOf(event, environment.id),
  });
}

interface ConfigurationState extends Record<string, unknown> {
  url?: string;
  revealed?: boolean;
  message?: string;
}

const configuration = createComponent<Record<string, unknown>, ConfigurationState>({
  componentId: 'webhook-configuration',
  initialState: () => ({}),
  async action(element, action, context) {
    const environment = context.environment;
    const selectable = environment.target === 'organization' ? [] : SELECTABLE[environment.target];
    const state = element.state;
    switch (action.action) {
      case 'save': {
        const patch: Record<string, unknown> = { url: state.url ?? environment.configuration.url ?? '' };
        for (const type of selectable) patch[type] = state[type] ?? environment.configuration[type] ?? false;
        const result = await context.api.updateConfiguration(patch);
        const message =
          result.errors.length === 0 ? 'Saved.' : `Saved, but: ${result.errors.map((e) => e.message).join('; ')}`;
        return { state: { ...state, message } };
      }
      case 'reveal':
        return { state: { ...state, revealed: true } };
      case 'hide':
        return { state: { ...state, revealed: false } };
      case 'rotate': {
        const response = await context.api.request(
          `/v1/installations/${encodeURIComponent(environment.id)}/signing-secret/rotate`,
          { method: 'POST' },
        );
        const message = response.ok
          ? 'A new secret signs from now on; the previous one also signs for 24 hours.'
          : 'The secret could not be rotated.';
        return { state: { ...state, revealed: response.ok, message } };
      }
      case 'enable': {
        const id = typeof action.endpoint === 'string' ? action.endpoint : '';
        const response = await context.api.request(
          `/v1/installations/${encodeURIComponent(environment.id)}/endpoints/${encodeURIComponent(id)}/enable`,
          { method: 'POST' },
        );
        const message = response.ok
          ? 'Deliveries go to the URL again. Redeliver what failed while it was disabled from the delivery log.'
          : 'The URL could not be enabled.';
        return { state: { ...state, message } };
      }
      case 'test': {
        const url = environment.configuration.url;
        if (typeof url !== 'string' || url === '') return { state: { ...state, message: 'Save a webhook URL first.' } };
        const eventId = `test_${crypto.randomUUID()}`;
        await requestDelivery(context, {
          url,
          eventId,
          type: 'webhook_test',
          payload: { eventId, type: 'webhook_test', installationId: environment.id },
        });
        return { state: { ...state, message: `Test event ${eventId} is on its way.` } };
      }
      default:
        return {};
    }
  },
  async render(element, context) {
    const environment = context.environment;
    const state = element.state;
    const children: ContentKitElement[] = [];
    if (environment.target === 'organization') {
      children.push({
        type: 'markdown',
        content: 'Install Webhooks into a space or a site to choose a URL and events.',
      });
      return { type: 'configuration', children };
    }
    children.push({
      type: 'textinput',
      state: 'url',
      placeholder: 'https://example.com/webhooks',
      initialValue: String(state.url ?? environment.configuration.url ?? ''),
    });
    for (const type of SELECTABLE[environment.target]) {
      children.push({
        type: 'hstack',
        children: [
          {
            type: 'switch',
            state: type,
            initialValue: Boolean(state[type] ?? environment.configuration[type] ?? false),
          },
          { type: 'text', children: LABELS[type] },
        ],
      });
    }
    children.push({ type: 'button', label: 'Save URL and events', style: 'primary', onPress: { action: 'save' } });
    // A URL that failed every attempt for days is disabled by the platform: say so, and offer to enable it.
    const endpoints = await context.api.request(`/v1/installations/${encodeURIComponent(environment.id)}/endpoints`);
    const disabled = endpoints.ok
      ? (
          (await endpoints.json()) as { id: string; url: string; state: string; disabledReason: string | null }[]
        ).filter((e) => e.state === 'disabled')
      : [];
    for (const endpoint of disabled) {
      children.push({
        type: 'markdown',
        content: `**Deliveries to ${endpoint.url} are disabled:** ${endpoint.disabledReason ?? 'every attempt failed'}`,
      });
      children.push({
        type: 'button',
        label: 'Enable deliveries',
        style: 'primary',
        onPress: { action: 'enable', endpoint: endpoint.id },
      });
    }
    children.push({ type: 'divider' });
    const secretResponse = state.revealed
      ? await context.api.request(`/v1/installations/${encodeURIComponent(environment.id)}/signing-secret`)
      : undefined;
    const secret = secretResponse?.ok ? ((await secretResponse.json()) as { secret: string }).secret : undefined;
    children.push({ type: 'markdown', content: `**Signing secret:** ${secret ? `\`${secret}\`` : 'hidden'}` });
    children.push({
      type: 'hstack',
      children: [
        state.revealed
          ? { type: 'button', label: 'Hide secret', onPress: { action: 'hide' } }
          : { type: 'button', label: 'Show secret', onPress: { action: 'reveal' } },
        { type: 'button', label: 'New secret', style: 'danger', onPress: { action: 'rotate' } },
        { type: 'button', label: 'Send test event', onPress: { action: 'test' } },
      ],
    });
    if (typeof state.message === 'string') children.push({ type: 'text', style: 'italic', children: state.message });
    const deliveries = await context.api.request(
      `/v1/installations/${encodeURIComponent(environment.id)}/deliveries?limit=5`,
    );
    const last = deliveries.ok
      ? ((await deliveries.json()) as {
          eventId: string;
          type: string;
          status: string;
          attempts: { status: number | null }[];
        }[])
      : [];
    children.push({
      type: 'markdown',
      content:
        last.length === 0
          ? '**Last deliveries:** none yet'
          : `**Last deliveries:**\n${last.map((d) => `- ${d.status} · ${d.type} · \`${d.eventId}\` · ${d.attempts.length} attempt(s), last answer ${d.attempts.at(-1)?.status ?? '—'}`).join('\n')}`,
    });
    return { type: 'configuration', children };
  },
});

export default createIntegration({
  components: [configuration],
  events: {
    space_content_updated: forward,
    site_view: forward,
    page_feedback: forward,
    async space_installation_setup() {},
    async site_installation_setup() {},
    async installation_setup() {},
  },
});
