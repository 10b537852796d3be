/**
 * The bundler of `portico dev`: one incremental esbuild context per entry script, so a rebuild
 * after a save only redoes what changed. Each bundle gets a source map (kept in memory, never
 * published) and a `//# sourceURL=bundle-<hash>.js` comment naming it in stack traces.
 */
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { Dialect } from '@portico/manifest';
import { type BuildContext, context } from 'esbuild';
import { buildProblems, bundleOptions } from '../bundle.js';
import { DEV_DIR } from '../dev-server-file.js';

export type DevBundle =
  | { ok: true; script: string; sourceURL: string; map: string; outfile: string }
  | { ok: false; problems: string[] };

export class DevBundler {
  private entry: string | undefined;
  private dialect: Dialect | undefined;
  private context: Promise<BuildContext> | undefined;
  /** Where the bundle would be written (it is not): its source map's paths are relative to it. */
  private readonly outfile: string;

  constructor(
    private readonly dir: string,
    private readonly cwd: string,
  ) {
    this.outfile = join(resolve(dir), DEV_DIR, 'bundle.js');
  }

  /**
   * Bundles `entry` (the manifest's `script`, relative to the directory), with the build
   * conventions of its dialect in development mode.
   */
  async build(entry: string, dialect: Dialect = 'portico'): Promise<DevBundle> {
    if (entry !== this.entry || dialect !== this.dialect) {
      await this.dispose();
      this.entry = entry;
      this.dialect = dialect;
      this.context = context({
        ...bundleOptions(this.dir, dialect, 'development'),
        absWorkingDir: resolve(this.dir),
        entryPoints: [resolve(this.dir, entry)],
        outfile: this.outfile,
        sourcemap: 'external',
        sourcesContent: false,
      });
    }
    let built: BuildContext;
    try {
      built = await (this.context as Promise<BuildContext>);
    } catch (error) {
      await this.dispose(); // the next build starts a new context
      return { ok: false, problems: [`could not start esbuild: ${(error as Error).message}`] };
    }
    try {
      const result = await built.rebuild();
      const code = result.outputFiles?.find((file) => file.path.endsWith('.js'));
      const map = result.outputFiles?.find((file) => file.path.endsWith('.js.map'));
      if (code === undefined || map === undefined) return { ok: false, problems: ['esbuild wrote no bundle'] };
      const hash = createHash('sha256').update(code.contents).digest('hex').slice(0, 12);
      const sourceURL = `bundle-${hash}.js`;
      return {
        ok: true,
        script: `${code.text}//# sourceURL=${sourceURL}\n`,
        sourceURL,
        map: map.text,
        outfile: this.outfile,
      };
    } catch (error) {
      const problems = buildProblems(error, this.dir, this.cwd);
      return { ok: false, problems: problems.length > 0 ? problems : [(error as Error).message] };
    }
  }

  async dispose(): Promise<void> {
    const pending = this.context;
    this.context = undefined;
    this.entry = undefined;
    this.dialect = undefined;
    // A context that failed to start, or an esbuild service already ended (Ctrl-C reaches it too).
    await pending?.then((c) => c.dispose()).catch(() => {});
  }
}
