import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { formatProblem, loadManifest, secretReferences } from '@portico/manifest';
import { build } from 'esbuild';
import { buildProblems, bundleOptions } from '../bundle.js';
import type { Io } from '../io.js';
import { publishedDialect, publishedManifest } from '../published-manifest.js';

export interface PublishOptions {
  api?: string;
  token?: string;
  /** For a gitbook-manifest.yaml: the entry of its `envs` to apply. */
  env?: string;
}

/**
 * `portico publish [DIR]`: checks the manifest (`platform-manifest.yaml`, or a GitBook-dialect
 * `gitbook-manifest.yaml` translated to it), bundles its `script` with esbuild into one ES
 * module (with the dialect's build conventions), reads the secrets it references from the environment, and publishes to the platform
 * with the files its `icon` and `previewImages` name.
 */
export async function publishIntegration(
  dir: string | undefined,
  options: PublishOptions,
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const fail = (message: string) => {
    io.err(`portico publish: ${message}\n`);
    return 1;
  };
  const api = (options.api ?? env.PORTICO_API)?.replace(/\/+$/, '');
  const token = options.token ?? env.PORTICO_TOKEN;
  if (!api) return fail('give the platform address with --api URL (or PORTICO_API)');
  if (!token) return fail('give your API token with --token TOKEN (or PORTICO_TOKEN)');

  const target = resolve(io.cwd, dir ?? '.');
  const envOption = options.env !== undefined ? { env: options.env } : {};
  // Internal scopes (`site:script:inject`) are for publishers the operator marks internal (the
  // operator's token): only the platform knows whose the token is, so it judges them.
  const result = await loadManifest(target, { ...envOption, internalPublisher: true });
  const manifestFile = basename(result.file);
  for (const warning of result.warnings) io.err(`${formatProblem(manifestFile, warning, 'warning')}\n`);
  if (!result.ok) {
    for (const error of result.errors) io.err(`${formatProblem(manifestFile, error)}\n`);
    return fail('the manifest is not valid; nothing was published');
  }
  const manifest = result.manifest;
  if (manifest.script === undefined)
    return fail('the manifest has no `script`: name the entry script that calls createIntegration()');

  let script: string;
  try {
    const bundle = await build({
      ...bundleOptions(target, result.dialect, 'production'),
      absWorkingDir: target,
      entryPoints: [resolve(target, manifest.script)],
    });
    script = bundle.outputFiles?.[0]?.text ?? '';
  } catch (error) {
    const problems = buildProblems(error, target, io.cwd);
    for (const problem of problems) io.err(`${problem}\n`);
    return fail(`could not bundle ${manifest.script}${problems.length ? '' : `: ${(error as Error).message}`}`);
  }

  const secrets: Record<string, string> = {};
  const missing: string[] = [];
  for (const { name, variable } of secretReferences(manifest)) {
    const value = env[variable];
    if (value === undefined || value === '') missing.push(`${variable} (for secret ${name})`);
    else secrets[variable] = value;
  }
  if (missing.length > 0) return fail(`set these environment variables first: ${missing.join(', ')}`);

  // The files of the integration's page (checked by loadManifest: they exist inside the directory).
  const assets: Record<string, string> = {};
  for (const path of [...(manifest.icon !== undefined ? [manifest.icon] : []), ...(manifest.previewImages ?? [])]) {
    assets[path] = (await readFile(resolve(target, path))).toString('base64');
  }

  let response: Response;
  try {
    response = await fetch(`${api}/v1/integrations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        manifest: await publishedManifest(result),
        script,
        secrets,
        ...(Object.keys(assets).length > 0 ? { assets } : {}),
        ...publishedDialect(result),
      }),
    });
  } catch (error) {
    return fail(`could not reach ${api}: ${(error as Error).message}`);
  }
  const body = (await response.json().catch(() => ({}))) as {
    name?: string;
    version?: number;
    error?: { code?: string; message?: string; errors?: { line: number; column: number; message: string }[] };
  };
  if (!response.ok) {
    // Refused for an internal scope (the token is not the operator's): said where the manifest asks for it.
    // (It was checked here as the operator's, so a manifest the platform refuses is refused for that.)
    const notInternal = body.error?.code === 'invalid_manifest' ? await loadManifest(target, envOption) : undefined;
    if (notInternal !== undefined && !notInternal.ok) {
      for (const error of notInternal.errors) io.err(`${formatProblem(manifestFile, error)}\n`);
    } else {
      // The platform's positions are in the text it got: the translation, for the GitBook dialect.
      const refused = result.dialect === 'gitbook' ? 'platform-manifest.yaml (translated)' : manifestFile;
      for (const e of body.error?.errors ?? []) io.err(`${formatProblem(refused, { path: '', ...e })}\n`);
    }
    return fail(`the platform refused it (${response.status}): ${body.error?.message ?? 'no message'}`);
  }
  io.out(
    `Published ${body.name} version ${body.version} (${(script.length / 1024).toFixed(1)} KiB bundled) to ${api}\n`,
  );
  return 0;
}
