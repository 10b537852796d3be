/**
 * One run of `portico dev`: the embedded platform, the dev world in it, the integration built,
 * published and installed, the dispatch stream, and a rebuild on every change of the sources,
 * until it is stopped.
 *
 * A reload checks the manifest, bundles, reads the secrets and publishes a new version; the
 * installations use the latest version of their integration, so the next dispatch runs it. Its
 * worker is started before the reload is reported, so "live" means the next request does not
 * wait for a cold start. Anything that fails on the way is printed with where it is, and nothing
 * is published: the version running keeps running.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { PorticoError } from '@portico/client';
import { formatProblem, INTERNAL_SCOPES, loadManifest, MANIFEST_FILE, type Manifest } from '@portico/manifest';
import { createSignInCode, type RunningPlatform, startPlatform } from '@portico/platform';
import { pino } from 'pino';
import { DEV_DIR, removeDevServer, writeDevServer } from '../dev-server-file.js';
import type { DevTarget } from '../dev-target.js';
import type { Io } from '../io.js';
import { publishedDialect, publishedManifest } from '../published-manifest.js';
import { DevBundler } from './dev-bundler.js';
import { banner, devServerOf, followed, type Installed, movedLines } from './dev-installed.js';
import { type DevInstallations, DevWorldError, ensureInstallations, seedDevWorld } from './dev-world.js';
import { clock, DispatchStream } from './dispatch-stream.js';
import { PlatformClient } from './platform-client.js';
import { devSecrets } from './secrets.js';
import { SourceWatcher } from './source-watcher.js';
import { SourceMaps } from './stack-traces.js';

export interface DevSessionOptions {
  /** The integration's directory (absolute). */
  dir: string;
  host: string;
  port: number;
  env: NodeJS.ProcessEnv;
}

/** What a start or a reload produced, or why it stopped (already printed). */
type Step<T> = { ok: true; value: T } | { ok: false };

interface Candidate {
  manifest: Manifest;
  manifestText: string;
  script: string;
  sourceURL: string;
  map: string;
  outfile: string;
  secrets: Record<string, string>;
  assets: Record<string, string>;
  /** For a GitBook-dialect integration, its facts beside the manifest (publishedDialect). */
  dialect: ReturnType<typeof publishedDialect>;
}

interface Current extends Installed {
  /** What was last published (bundle, manifest, secrets): a save that changes none of it publishes nothing. */
  published: string;
}

export class DevSession {
  private readonly dataDir: string;
  private readonly bundler: DevBundler;
  private readonly maps: SourceMaps;
  private platform: RunningPlatform | undefined;
  private admin: PlatformClient | undefined;
  private user: PlatformClient | undefined;
  private stream: DispatchStream | undefined;
  private watcher: SourceWatcher | undefined;
  private current: Current | undefined;
  /** The reload running, and the changes that came in meanwhile. */
  private reloading: Promise<void> | undefined;
  private waiting: { paths: Set<string>; firstSeenAt: number } | undefined;
  private stopping = false;
  /** Removes the file other commands read also when the process exits without stopping first. */
  private readonly removeOnExit = () => removeDevServer(this.options.dir);

  constructor(
    private readonly options: DevSessionOptions,
    private readonly io: Io,
  ) {
    this.dataDir = join(options.dir, DEV_DIR);
    this.bundler = new DevBundler(options.dir, io.cwd);
    this.maps = new SourceMaps(io.cwd);
  }

  /** Where the admin token is kept. */
  get adminTokenFile(): string {
    return join(this.dataDir, 'admin-token');
  }

  /** Builds, starts the platform, seeds, publishes, installs, prints the links and starts watching. */
  async start(): Promise<boolean> {
    const started = performance.now();
    const candidate = await this.prepare();
    if (!candidate.ok) return false;
    const { manifest } = candidate.value;

    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    // The data directory never belongs in version control.
    writeFileSync(join(this.dataDir, '.gitignore'), '*\n');
    try {
      this.platform = await startPlatform(
        {
          port: this.options.port,
          host: this.options.host,
          dataDir: this.dataDir,
          allowPrivateNetwork: true,
          publicUrl: this.options.env.PORTICO_PUBLIC_URL || undefined,
          // One integration in development: a few versions' workers at most.
          tuning: { maxWorkers: 4 },
        },
        {
          logger: terminalLogger(this.io),
          // Output during a dispatch comes with it (in its dispatch's lines); what the worker prints
          // outside any (at import, or after its answer) is shown as it comes.
          // A built-in named like this integration (`webhook`) is left out: here the name is this one's.
          withoutBuiltins: [manifest.name],
          onWorkerOutput: (line, worker) =>
            this.io.out(`${clock()} ${worker.name} (outside a dispatch)\n  │ ${this.maps.map(line)}\n`),
        },
      );
    } catch (error) {
      this.io.err(`portico dev: could not start the platform: ${(error as Error).message}\n`);
      return false;
    }
    const platform = this.platform;
    this.admin = new PlatformClient(platform.url, platform.adminToken);
    try {
      this.user = await seedDevWorld(this.admin, this.dataDir, manifest.organization);
    } catch (error) {
      this.io.err(
        `portico dev: ${error instanceof DevWorldError ? '' : 'could not set up the dev organization: '}${(error as Error).message}\n`,
      );
      return false;
    }
    this.stream = new DispatchStream(platform.ctx, (text) => this.io.out(text), this.maps, Date.now());
    const published = await this.publish(candidate.value);
    if (!published.ok) return false;
    const target = targetOf(candidate.value);
    let installations: DevInstallations;
    try {
      ({ installations } = await ensureInstallations(this.user, manifest.organization, manifest.name, target));
    } catch (error) {
      this.io.err(`portico dev: could not install ${manifest.name}: ${(error as Error).message}\n`);
      return false;
    }
    this.current = {
      published: publishedKey(candidate.value),
      name: manifest.name,
      organization: manifest.organization,
      version: published.value,
      target,
      installations,
    };
    this.announce();
    process.on('exit', this.removeOnExit);
    const code = await createSignInCode(platform.ctx);
    this.watcher = new SourceWatcher(this.options.dir, (paths, at) => this.changed(paths, at));
    await this.watcher.ready();
    this.io.out(
      banner(this.current as Current, {
        url: this.platform?.url ?? '',
        code,
        ms: performance.now() - started,
        adminTokenFile: this.adminTokenFile,
      }),
    );
    return true;
  }

  /** Stops watching, the platform (and its workers) and removes the file other commands read. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.watcher?.close();
    await this.bundler.dispose();
    await this.stream?.stop();
    await this.platform?.close();
    process.off('exit', this.removeOnExit);
    removeDevServer(this.options.dir);
  }

  /** Follows its installations in the stream and says where they are in dev-server.json. */
  private announce(): void {
    const current = this.current as Current;
    this.stream?.follow(followed(current));
    writeDevServer(
      this.options.dir,
      devServerOf(current, { api: this.platform?.url ?? '', adminTokenFile: this.adminTokenFile }),
    );
  }

  /** The manifest, bundle, secrets and files of the directory as it is now; problems printed. */
  private async prepare(): Promise<Step<Candidate>> {
    const { dir, env } = this.options;
    // Published with its platform's admin token (the operator's): internal scopes such as
    // `site:script:inject` are allowed, as they are to an operator publishing on a server.
    const loaded = await loadManifest(dir, { internalPublisher: true });
    const manifestFile = relative(this.io.cwd, loaded.file) || basename(loaded.file);
    for (const warning of loaded.warnings) this.io.err(`${formatProblem(manifestFile, warning, 'warning')}\n`);
    if (!loaded.ok) {
      for (const error of loaded.errors) this.io.err(`${formatProblem(manifestFile, error)}\n`);
      return { ok: false };
    }
    const manifest = loaded.manifest;
    if (manifest.script === undefined) {
      this.io.err(
        `${manifestFile}:1:1: the manifest has no \`script\`: name the entry script that calls createIntegration(), e.g. \`script: src/index.ts\`\n`,
      );
      return { ok: false };
    }
    const bundle = await this.bundler.build(manifest.script, loaded.dialect);
    if (!bundle.ok) {
      for (const problem of bundle.problems) this.io.err(`${problem}\n`);
      return { ok: false };
    }
    const secrets = devSecrets(manifest, dir, env);
    if (!secrets.ok) {
      this.io.err(`portico dev: ${secrets.message}\n`);
      return { ok: false };
    }
    const assets: Record<string, string> = {};
    for (const path of [...(manifest.icon !== undefined ? [manifest.icon] : []), ...(manifest.previewImages ?? [])]) {
      assets[path] = readFileSync(join(dir, path)).toString('base64');
    }
    return {
      ok: true,
      value: {
        manifest,
        manifestText: await publishedManifest(loaded),
        dialect: publishedDialect(loaded),
        script: bundle.script,
        sourceURL: bundle.sourceURL,
        map: bundle.map,
        outfile: bundle.outfile,
        secrets: secrets.secrets,
        assets,
      },
    };
  }

  /**
   * Publishes a candidate as the dev user and starts its worker; answers the version. A manifest
   * that asks for an internal scope (`site:script:inject`) is published as the operator of this
   * platform (the developer's own), as an operator publishes it on a server.
   */
  private async publish(candidate: Candidate): Promise<Step<number>> {
    const platform = this.platform as RunningPlatform;
    const internal = (candidate.manifest.scopes ?? []).some((scope) => INTERNAL_SCOPES.includes(scope));
    const publisher = (internal ? this.admin : this.user) as PlatformClient;
    let published: { name: string; version: number; warnings?: string[] };
    try {
      published = await publisher.call(
        publisher.portico.POST('/v1/integrations', {
          body: {
            manifest: candidate.manifestText,
            script: candidate.script,
            secrets: candidate.secrets,
            ...(Object.keys(candidate.assets).length > 0 ? { assets: candidate.assets } : {}),
            ...candidate.dialect,
          },
        }),
      );
    } catch (error) {
      if (this.stopping) return { ok: false };
      const errors =
        error instanceof PorticoError
          ? ((error.body as { error?: { errors?: { line: number; column: number; message: string }[] } })?.error
              ?.errors ?? [])
          : [];
      const manifestFile = relative(this.io.cwd, join(this.options.dir, MANIFEST_FILE)) || MANIFEST_FILE;
      for (const e of errors) this.io.err(`${formatProblem(manifestFile, { path: '', ...e })}\n`);
      this.io.err(`portico dev: the platform refused to publish it: ${(error as Error).message}\n`);
      return { ok: false };
    }
    this.maps.add(candidate.sourceURL, candidate.map, candidate.outfile);
    for (const warning of published.warnings ?? []) this.io.err(`warning: ${warning}\n`);
    // Start the new version's worker now, so that the next dispatch finds it running.
    const descriptor = await platform.dispatcher.describe(
      await platform.dispatcher.bundle(published.name, published.version),
    );
    if (descriptor === undefined && !this.stopping) {
      this.io.err(
        `portico dev: version ${published.version} of ${published.name} did not start (see above); its dispatches fail until the next change fixes it\n`,
      );
    }
    return { ok: true, value: published.version };
  }

  /** Called by the watcher: reloads now, or once the reload under way is done. */
  private changed(paths: string[], firstSeenAt: number): void {
    if (this.stopping) return;
    if (this.waiting === undefined) this.waiting = { paths: new Set(), firstSeenAt };
    for (const path of paths) this.waiting.paths.add(path);
    if (this.reloading === undefined) this.reloading = this.drain();
  }

  private async drain(): Promise<void> {
    while (this.waiting !== undefined && !this.stopping) {
      const { paths, firstSeenAt } = this.waiting;
      this.waiting = undefined;
      try {
        await this.reload([...paths], firstSeenAt);
      } catch (error) {
        if (!this.stopping) this.io.err(`portico dev: the reload failed: ${(error as Error).message}\n`);
      }
    }
    this.reloading = undefined;
  }

  private async reload(paths: string[], firstSeenAt: number): Promise<void> {
    const what = paths.length <= 3 ? paths.join(', ') : `${paths.slice(0, 3).join(', ')} and ${paths.length - 3} more`;
    const keeps = () => {
      const current = this.current as Current;
      this.io.err(
        `${clock()} Not reloaded (${what} changed): fix the problem above; version ${current.version} keeps running\n`,
      );
    };
    const candidate = await this.prepare();
    if (this.stopping) return;
    if (!candidate.ok) return keeps();
    const { manifest } = candidate.value;
    const current = this.current as Current;
    if (manifest.organization !== current.organization) {
      this.io.err(
        `portico dev: the manifest's organization changed from "${current.organization}" to "${manifest.organization}": stop portico dev (Ctrl-C) and start it again with --fresh\n`,
      );
      return keeps();
    }
    // A save that changes nothing that is published (a README, a test) is not a new version.
    if (publishedKey(candidate.value) === current.published) return;
    const published = await this.publish(candidate.value);
    if (this.stopping) return;
    if (!published.ok) return keeps();
    current.published = publishedKey(candidate.value);
    if (manifest.name === current.name) {
      // The developer consents to what their own version asks for (on a server, an admin of each
      // organization accepts it: DESIGN.md "Granted scopes"); nothing changes when it asks for no more.
      const user = this.user as PlatformClient;
      await user
        .call(
          user.portico.POST('/v1/installations/{id}/scopes/accept', {
            params: { path: { id: current.installations.organization.id } },
            body: {},
          }),
        )
        .catch((error: Error) => this.io.err(`portico dev: its new scopes are not granted: ${error.message}\n`));
    }
    const target = targetOf(candidate.value);
    if (manifest.name !== current.name || target !== current.target) {
      // A new name is a new integration: install it as well and follow its installations. A new
      // target installs it where it now may be, and uninstalls it where it no longer may.
      const renamed = manifest.name !== current.name;
      const before = current.installations;
      const { installations, removed } = await ensureInstallations(
        this.user as PlatformClient,
        manifest.organization,
        manifest.name,
        target,
      );
      current.installations = installations;
      current.name = manifest.name;
      current.target = target;
      // Renamed, it is a new integration: its installations are not moves (only a new target's are).
      this.io.out(movedLines(renamed ? installations : before, current, removed));
      this.announce();
    }
    current.version = published.value;
    this.io.out(
      `${clock()} Reloaded: ${current.name} version ${current.version} is live, ${Math.round(performance.now() - firstSeenAt)} ms after the change (${what})\n`,
    );
  }

  /** Removes the data directory (`--fresh`). */
  static forget(dir: string): void {
    rmSync(join(dir, DEV_DIR), { recursive: true, force: true });
  }
}

/** Where the candidate may be installed: its GitBook-dialect `target`, `all` for a Portico integration. */
function targetOf(candidate: Candidate): DevTarget {
  return candidate.dialect.gitbook?.target ?? 'all';
}

function publishedKey(candidate: Candidate): string {
  const { sourceURL, manifestText, secrets, assets, dialect } = candidate;
  return JSON.stringify([sourceURL, manifestText, secrets, assets, dialect]);
}

/** The platform's warnings and errors as one readable line each (its info lines are not shown). */
function terminalLogger(io: Io) {
  return pino(
    { level: 'warn' },
    {
      write(line: string) {
        try {
          const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } };
          io.err(`portico dev: ${entry.msg ?? ''}${entry.err?.message ? `: ${entry.err.message}` : ''}\n`);
        } catch {
          io.err(line);
        }
      },
    },
  );
}
