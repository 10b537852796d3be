/**
 * The integration registry: published versions as the dispatcher runs them (script, manifest,
 * what each handles), cached by version, and which host runs each. What a version handles is
 * learned once (`GET /v1`, or the built-in's own description) and kept in the database, so
 * routing never waits on a worker.
 */
import type { Manifest } from '@portico/manifest';
import type { IntegrationDescriptor } from '@portico/runtime';
import type { Logger } from 'pino';
import { type GitBookFacts, readGitBookFacts } from '../gitbook/dialect.js';
import type { Host, IntegrationBundle } from '../hosts/host.js';
import type { InProcessHost } from '../hosts/in-process-host.js';
import { SETUP_EVENTS } from '../installations/owed-events.js';
import { latestVersion } from '../integrations/read.js';
import * as integrations from '../storage/repositories/integrations.js';
import type { ServiceContext } from '../types.js';

/** After asking a version what it handles got no answer, the next question waits this long. */
const DESCRIBE_RETRY_MS = 30_000;

/** The scope an integration needs to receive each platform event (DESIGN.md). */
export const REQUIRED_SCOPE: Record<string, string> = {
  space_content_updated: 'space:content:read',
  space_view: 'space:content:read',
  space_visibility_updated: 'space:metadata:read',
  space_gitsync_started: 'space:git:sync',
  space_gitsync_completed: 'space:git:sync',
  site_view: 'site:views:read',
  page_feedback: 'site:views:read',
};

export interface Hosts {
  workerd: Host;
  inProcess: InProcessHost;
  remote: Host;
}

export interface LoadedBundle extends IntegrationBundle {
  manifest: Manifest;
  secrets: string | null;
  descriptor: IntegrationDescriptor | undefined;
  /** The GitBook dialect's facts, for a version published from `gitbook-manifest.yaml`. */
  gitbook: GitBookFacts | undefined;
}

export class IntegrationRegistry {
  private readonly bundles = new Map<string, Promise<LoadedBundle>>();
  private readonly describing = new Map<string, Promise<IntegrationDescriptor | undefined>>();

  constructor(
    private readonly ctx: ServiceContext,
    private readonly hosts: Hosts,
    private readonly logger?: Logger | undefined,
  ) {}

  /** A published version of an integration (the latest when `version` is not given), cached by version. */
  async bundle(name: string, version?: number): Promise<LoadedBundle> {
    const latest = version ?? (await latestVersion(this.ctx, name));
    const key = `${name}@${latest}`;
    let bundle = this.bundles.get(key);
    if (bundle === undefined) {
      bundle = integrations.versionRow(this.ctx.db, name, latest).then((row) => ({
        name,
        version: latest,
        script: row.script,
        endpoint: row.endpoint,
        manifest: JSON.parse(row.manifest) as Manifest,
        secrets: row.secrets,
        // A built-in says what it handles in this process: what an older version stored may differ.
        descriptor:
          this.hosts.inProcess.descriptorOf(name) ??
          (row.descriptor === null ? undefined : (JSON.parse(row.descriptor) as IntegrationDescriptor)),
        gitbook: readGitBookFacts(row.gitbook),
      }));
      this.bundles.set(key, bundle);
      bundle.catch(() => this.bundles.delete(key));
    }
    return bundle;
  }

  hostFor(bundle: IntegrationBundle): Host {
    if (this.hosts.inProcess.has(bundle.name)) return this.hosts.inProcess;
    if (bundle.endpoint) return this.hosts.remote;
    return this.hosts.workerd;
  }

  /**
   * What the integration handles (`GET /v1`), learned once per version and kept in the database.
   * One question per version at a time; after one that got no answer, the next waits
   * `DESCRIBE_RETRY_MS` (a worker that does not answer is not asked once per event).
   */
  describe(bundle: LoadedBundle): Promise<IntegrationDescriptor | undefined> {
    if (bundle.descriptor !== undefined) return Promise.resolve(bundle.descriptor);
    const key = `${bundle.name}@${bundle.version}`;
    let asking = this.describing.get(key);
    if (asking === undefined) {
      asking = this.learnDescriptor(bundle).catch((error) => {
        this.logger?.warn({ err: error, integration: key }, 'could not learn what the integration handles');
        return undefined;
      });
      this.describing.set(key, asking);
      void asking.then((descriptor) => {
        if (descriptor !== undefined) this.describing.delete(key);
        else setTimeout(() => this.describing.delete(key), DESCRIBE_RETRY_MS).unref();
      });
    }
    return asking;
  }

  /**
   * A version answered 406 to an event type that routing sends (GitBook's runtime answers so for
   * an event it has no handler for): it does not handle it, and routing stops sending it that type,
   * here and on every node that loads the version afresh. Logged once.
   */
  async notHandled(integration: string, version: number, type: string): Promise<void> {
    const setup = SETUP_EVENTS.has(type);
    if (!(type in REQUIRED_SCOPE) && !setup) return;
    const bundle = await this.bundle(integration, version);
    const descriptor = bundle.descriptor ?? (await this.describe(bundle));
    // An integration that describes itself says what it handles; its 406 is about one event.
    if (descriptor?.runtime !== 'gitbook') return;
    if (setup) {
      // Owed to every installation, not routed: installations stop being owed it (owed-events.ts).
      if (descriptor.declined?.includes(type)) return;
      bundle.descriptor = { ...descriptor, declined: [...(descriptor.declined ?? []), type] };
    } else {
      if (!descriptor.events.includes(type)) return;
      bundle.descriptor = { ...descriptor, events: descriptor.events.filter((event) => event !== type) };
    }
    this.logger?.info(
      { integration: `${integration}@${version}`, type },
      'the integration answered 406: it does not handle this event type, which is not sent to this version again',
    );
    await integrations.setDescriptor(this.ctx.db, integration, version, JSON.stringify(bundle.descriptor));
  }

  /** Whether a version may receive (scope) and handles (descriptor) an event type. */
  async receives(integration: string, version: number, type: string): Promise<boolean> {
    const bundle = await this.bundle(integration, version);
    const scope = REQUIRED_SCOPE[type];
    if (scope !== undefined && !(bundle.manifest.scopes as string[]).includes(scope)) return false;
    if (bundle.descriptor === undefined) {
      // Not learned yet: learn it in the background; meanwhile the integration itself says.
      void this.describe(bundle);
      return true;
    }
    return bundle.descriptor.events.includes(type);
  }

  private async learnDescriptor(bundle: LoadedBundle): Promise<IntegrationDescriptor | undefined> {
    const builtin = this.hosts.inProcess.descriptorOf(bundle.name);
    const descriptor =
      builtin ??
      (bundle.gitbook !== undefined ? manifestDescriptor(bundle.manifest) : undefined) ??
      (await this.hostFor(bundle)
        .dispatch(bundle, { method: 'GET' })
        .then((response) =>
          response.status === 200
            ? (JSON.parse(new TextDecoder().decode(response.body)) as IntegrationDescriptor)
            : undefined,
        )
        .catch(() => undefined));
    if (descriptor === undefined) return undefined;
    bundle.descriptor = descriptor;
    await integrations.setDescriptor(this.ctx.db, bundle.name, bundle.version, JSON.stringify(descriptor));
    return descriptor;
  }
}

/**
 * What a version written for GitBook's runtime handles, read from its manifest, since that runtime
 * cannot say (it answers `GET /v1` with 500): every event its scopes allow (a 406 answer later
 * takes a type out, `notHandled`) and a component per block.
 */
export function manifestDescriptor(manifest: Manifest): IntegrationDescriptor {
  const scopes = manifest.scopes as string[];
  return {
    runtime: 'gitbook',
    versions: [],
    fetch: true,
    events: Object.entries(REQUIRED_SCOPE)
      .filter(([, scope]) => scopes.includes(scope))
      .map(([type]) => type),
    components: (manifest.blocks ?? []).map((block) => block.id),
  };
}
