/**
 * The webhook integration (spec 1, 2.9, 6.2), written with the SDK like any other integration.
 * A space or site installation forwards the events its configuration selects to its URL: the
 * platform's delivery engine signs each delivery and retries it. The URL and the events are edited
 * in the platform's generated form, the signing secret and the test event in the platform's panels;
 * the configuration component only says, read fresh at each render, what is sent where.
 */
import {
  type Context,
  createComponent,
  createIntegration,
  type PageFeedbackEvent,
  type SiteViewEvent,
  type SpaceContentUpdatedEvent,
} from '@portico/runtime';
import { deliveryPolicy, isDeliveryPolicyName, parseHeaderLines } from '@portico/webhooks';

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
  body: {
    url: string;
    eventId: string;
    type: string;
    payload: Record<string, unknown>;
    headers?: Record<string, string>;
    policy?: string;
  },
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

/** The installation's own headers: its `headers` text, one `Name: value` per line. */
function headersOf(text: unknown): { headers: Record<string, string> } {
  return typeof text === 'string' ? parseHeaderLines(text) : { headers: {} };
}

async function forward(event: WebhookEvent, context: Context): Promise<void> {
  const environment = context.environment;
  if (environment.target === 'organization') return; // only space and site installations deliver
  if (!SELECTABLE[environment.target].includes(event.type)) return;
  const { url } = environment.configuration;
  if (typeof url !== 'string' || url === '' || environment.configuration[event.type] !== true) return;
  // The platform checks the headers when they are saved, and again when the delivery is asked for.
  const { headers } = headersOf(environment.configuration.headers);
  await requestDelivery(context, {
    url,
    eventId: event.eventId,
    type: event.type,
    payload: payloadOf(event, environment.id),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    // The delivery keeps the policy in force now; a change applies to deliveries asked for afterwards.
    ...(isDeliveryPolicyName(environment.configuration.delivery_policy)
      ? { policy: environment.configuration.delivery_policy }
      : {}),
  });
}

/**
 * Read-only: what this installation sends, and where, from the configuration as it is now (the
 * dashboard renders it again after every save). Editing happens in the generated form only.
 */
const configuration = createComponent({
  componentId: 'webhook-configuration',
  async render(_element, context) {
    const environment = context.environment;
    if (environment.target === 'organization') {
      return {
        type: 'configuration',
        children: [
          {
            type: 'text',
            children:
              'Each space or site it is installed in has its own URL and events: open it under "Installed in" to set them.',
          },
        ],
      };
    }
    const { url } = environment.configuration;
    const selected = SELECTABLE[environment.target].filter((type) => environment.configuration[type] === true);
    const summary =
      typeof url !== 'string' || url === ''
        ? 'Nothing is sent yet: set the Webhook URL in the form above.'
        : selected.length === 0
          ? `Nothing is sent to ${url}: no event is selected.`
          : `Sends ${selected.map((type) => LABELS[type].toLowerCase()).join(' and ')} to ${url}.`;
    // The chosen policy's schedule in words (the default, standard, when none is chosen).
    const retries = deliveryPolicy(
      typeof environment.configuration.delivery_policy === 'string' ? environment.configuration.delivery_policy : null,
    );
    return {
      type: 'configuration',
      children: [
        { type: 'text', children: summary },
        { type: 'text', children: `Retries: ${retries.summary}` },
      ],
    };
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
