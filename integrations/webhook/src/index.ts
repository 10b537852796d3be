/**
 * The webhook integration (spec 1, 2.9, 6.2): its manifest, its configuration component and the
 * spec 2.9 payload. A space or site installation's configuration is its first subscription: the
 * platform writes one delivery per subscription that selected an event when it accepts the event,
 * with the body `payloadOf` builds, and its delivery engine signs and retries each. The URL and the
 * events are edited in the platform's generated form (more subscriptions through the API), the
 * signing secret and the test event in the platform's panels; the configuration component only
 * says, read fresh at each render, what is sent where.
 */
import {
  createComponent,
  createIntegration,
  type PageFeedbackEvent,
  type SiteViewEvent,
  type SpaceContentUpdatedEvent,
} from '@portico/runtime';
import { deliveryPolicy } from '@portico/webhooks';

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

// No event handlers: the platform fans the events out to the installation's subscriptions itself,
// with `payloadOf` (DESIGN.md "The pipeline's shape").
export default createIntegration({
  components: [configuration],
});
