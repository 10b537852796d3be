/**
 * The core types of the Portico SDK.
 *
 * Glossary
 * - integration: a program that extends the documentation platform; a manifest
 *   (`platform-manifest.yaml`) declares it and an entry script calls `createIntegration()`.
 * - installation: an integration installed into an organization (an org-level installation),
 *   or, below one, into a space or a site (space and site installations). Each has its own
 *   configuration, status, API token and public endpoint.
 * - environment: what the platform tells the integration about the installation an event is
 *   for (spec 2.6): API endpoint and token, configuration, status, target, secrets.
 * - event: something that happened on the platform (spec 6.1, 2.9), or a request that reached
 *   the installation's public endpoint (`fetch`), or a component to render (`ui_render`).
 * - envelope: how an event reaches the integration: `POST /v1`, multipart/form-data with the
 *   parts `event`, `environment` and, for requests, `fetch-body` (spec 2.7, 4.1).
 * - dispatch: one envelope delivered to one installation's integration and its answer.
 * - component: a UI element tree (ContentKit) the integration renders, with state and actions.
 */
import type { PlatformApi } from './api-client.js';
import type { ContentKitAction, ContentKitRoot } from './contentkit.js';

export type InstallationStatus = 'pending' | 'active' | 'paused';
export type InstallationTarget = 'organization' | 'space' | 'site';

/** Tokens for the platform API (`Authorization: Bearer <installation>`), scoped to this installation. */
export interface ApiTokens {
  installation: string;
}

export interface IntegrationInfo {
  name: string;
  version?: string;
  urls: { publicEndpoint: string };
}

export type Configuration = Record<string, unknown>;

interface BaseEnvironment {
  /** Base URL of the platform HTTP API, e.g. `http://127.0.0.1:8787`. */
  apiEndpoint: string;
  apiTokens: ApiTokens;
  integration: IntegrationInfo;
  /** The installation's id. */
  id: string;
  status: InstallationStatus;
  configuration: Configuration;
  urls: { publicEndpoint: string };
  /** The integration's manifest secrets, resolved and decrypted for this envelope only. */
  secrets: Record<string, string>;
  /** A per-installation secret key the SDK uses to sign short-lived values such as OAuth `state`. */
  installationKey: string;
  /** The organization the installation belongs to. */
  organization: string;
}

/** Whether an organization installation is installed into every space of the organization, or the ones listed. */
export type SpaceSelection = { mode: 'all' } | { mode: 'selected'; spaces: string[] };
/** Whether an organization installation is installed into every site of the organization, or the ones listed. */
export type SiteSelection = { mode: 'all' } | { mode: 'selected'; sites: string[] };

export interface OrganizationInstallationEnvironment extends BaseEnvironment {
  target: 'organization';
  /** Whether the integration runs in all spaces of the organization or in selected ones. */
  space_selection: SpaceSelection;
  /** Whether the integration runs in all sites of the organization or in selected ones. */
  site_selection: SiteSelection;
  /** External identifiers the integration assigned to this installation. */
  externalIds: string[];
}

/**
 * The organization installation a space or site installation belongs to, as its dispatches see it:
 * its `account` configuration (an API key, say) is read here without a second call.
 */
export interface OrganizationInstallationInfo {
  id: string;
  status: InstallationStatus;
  configuration: Configuration;
  space_selection: SpaceSelection;
  site_selection: SiteSelection;
  externalIds: string[];
  urls: { publicEndpoint: string };
}

export interface SpaceInstallationEnvironment extends BaseEnvironment {
  target: 'space';
  /** The space the integration is installed in. */
  space: string;
  /** The organization-level installation this one belongs to. */
  parentInstallationId: string;
  /** That organization installation: its configuration, status and selection. */
  installation: OrganizationInstallationInfo;
  externalIds: string[];
}

export interface SiteInstallationEnvironment extends BaseEnvironment {
  target: 'site';
  site: string;
  /** The site's space, when it publishes one. */
  space?: string;
  parentInstallationId: string;
  /** That organization installation: its configuration, status and selection. */
  installation: OrganizationInstallationInfo;
  externalIds: string[];
}

export type Environment =
  | OrganizationInstallationEnvironment
  | SpaceInstallationEnvironment
  | SiteInstallationEnvironment;

/** A visitor of a site (spec 2.9). */
export interface Visitor {
  anonymousId: string;
  userAgent: string;
  ip: string;
  cookies: Record<string, string>;
}

interface BaseEvent {
  /** Unique per event; a repeated eventId is the same event delivered again. */
  eventId: string;
  /** The installation the event is dispatched to. */
  installationId?: string;
}

export interface InstallationSetupEvent extends BaseEvent {
  type: 'installation_setup';
  status: InstallationStatus;
}
export interface SpaceInstallationSetupEvent extends BaseEvent {
  type: 'space_installation_setup';
  spaceId: string;
  status: InstallationStatus;
}
export interface SiteInstallationSetupEvent extends BaseEvent {
  type: 'site_installation_setup';
  siteId: string;
  status: InstallationStatus;
}
/** The installation was removed (uninstalled); its API token no longer works. */
export interface InstallationDeletedEvent extends BaseEvent {
  type: 'installation_deleted';
}
export interface SpaceInstallationDeletedEvent extends BaseEvent {
  type: 'space_installation_deleted';
  spaceId: string;
}
export interface SiteInstallationDeletedEvent extends BaseEvent {
  type: 'site_installation_deleted';
  siteId: string;
}
export interface SpaceViewEvent extends BaseEvent {
  type: 'space_view';
  spaceId: string;
  visitor?: Visitor;
  url?: string;
  referrer?: string;
}
export interface SpaceContentUpdatedEvent extends BaseEvent {
  type: 'space_content_updated';
  spaceId: string;
  revisionId: string;
}
export interface SpaceVisibilityUpdatedEvent extends BaseEvent {
  type: 'space_visibility_updated';
  spaceId: string;
  visibility?: string;
}
export interface SpaceGitSyncStartedEvent extends BaseEvent {
  type: 'space_gitsync_started';
  spaceId: string;
  revisionId?: string;
}
export interface SpaceGitSyncCompletedEvent extends BaseEvent {
  type: 'space_gitsync_completed';
  spaceId: string;
  revisionId?: string;
  state?: 'success' | 'failure';
}
export interface SiteViewEvent extends BaseEvent {
  type: 'site_view';
  siteId: string;
  visitor: Visitor;
  url: string;
  referrer: string;
}
export interface PageFeedbackEvent extends BaseEvent {
  type: 'page_feedback';
  siteId: string;
  spaceId: string;
  pageId: string;
  feedback: { rating: string; comment: string };
  visitor: Visitor;
  url: string;
  referrer: string;
}

/**
 * Where a component is rendered: `document` for a block in a page (of `spaceId`), or the
 * configuration screen of an organization (`configuration_account`), space or site installation.
 */
export interface ContentKitContext {
  type: 'document' | 'configuration_account' | 'configuration_space' | 'configuration_site';
  organizationId: string;
  spaceId?: string;
  siteId?: string;
  /** For a block: whether the person sees the page as an editor. */
  editable?: boolean;
  theme: 'light' | 'dark';
}

/** A component to render, and optionally an action to run first (spec 2.4, 6.3). */
export interface UIRenderEvent extends BaseEvent {
  type: 'ui_render';
  componentId: string;
  props?: Record<string, unknown>;
  state?: Record<string, unknown>;
  action?: ContentKitAction;
  /** Where it is rendered (sent by the platform; missing from older platforms). */
  context?: ContentKitContext;
}

/** A request that reached the installation's public endpoint; its body is the `fetch-body` part. */
export interface FetchEvent extends BaseEvent {
  type: 'fetch';
  request: { method: string; url: string; headers: [string, string][] };
}

/**
 * A site asks for the script the integration publishes into its pages (scope `site:script:inject`,
 * internal): the answer's body is the script. Sent to a site installation, synchronously, when
 * `GET /v1/installations/{id}/published-script` has no current copy.
 */
export interface FetchPublishedScriptEvent extends BaseEvent {
  type: 'fetch_published_script';
  siteId: string;
}

/** The events an integration can register handlers for in `createIntegration({ events })`. */
export type RuntimeEvent =
  | InstallationSetupEvent
  | SpaceInstallationSetupEvent
  | SiteInstallationSetupEvent
  | InstallationDeletedEvent
  | SpaceInstallationDeletedEvent
  | SiteInstallationDeletedEvent
  | SpaceViewEvent
  | SpaceContentUpdatedEvent
  | SpaceVisibilityUpdatedEvent
  | SpaceGitSyncStartedEvent
  | SpaceGitSyncCompletedEvent
  | SiteViewEvent
  | PageFeedbackEvent;

export type RuntimeEventType = RuntimeEvent['type'];
export type EventOfType<T extends RuntimeEventType> = Extract<RuntimeEvent, { type: T }>;

/** Everything that can arrive in an envelope's `event` part. */
export type PlatformEvent = RuntimeEvent | UIRenderEvent | FetchEvent | FetchPublishedScriptEvent;

export interface Context<E extends Environment = Environment> {
  environment: E;
  /** A client for the platform API, authenticated as this installation. */
  api: PlatformApi;
  /** Keeps the integration alive for `promise` after the response is sent (spec 4.2: answer quickly). */
  waitUntil(promise: Promise<unknown>): void;
}

export type EventHandlers = {
  [T in RuntimeEventType]?: (event: EventOfType<T>, context: Context) => void | Promise<void>;
};

export type FetchHandler = (request: Request, context: Context) => Response | Promise<Response>;

export type { ContentKitAction, ContentKitRoot };
