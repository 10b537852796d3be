import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { isValidIntegrationName, loadManifest } from '@portico/manifest';
import type { Io } from '../io.js';
import { packageSource, scaffoldDependencies } from '../portico-packages.js';
import { nameFromDirectory, type ScaffoldAnswers, scaffoldFiles, titleFromName } from '../scaffold.js';
import { TYPESCRIPT_RANGE, VITEST_RANGE } from '../version.js';

export interface NewOptions {
  name?: string;
  title?: string;
  description?: string;
  organization?: string;
  /** Ask nothing: take the flags and defaults. */
  yes?: boolean;
}

const DEFAULT_ORGANIZATION = 'my-organization';
const NAME_RULE =
  'lowercase words of letters and digits joined by single hyphens, starting with a letter, e.g. `my-integration`';

/**
 * `portico new [DIR]`: writes a new integration that passes `portico check` as created.
 * In a terminal it asks for what the flags did not give; otherwise it uses defaults.
 */
export async function newIntegration(dir: string | undefined, options: NewOptions, io: Io): Promise<number> {
  const fail = (message: string) => {
    io.err(`portico new: ${message}\n`);
    return 1;
  };
  if (options.name !== undefined && !isValidIntegrationName(options.name)) {
    return fail(`--name "${options.name}" is not a valid name: use ${NAME_RULE}`);
  }
  const guess = options.name ?? (dir === undefined ? undefined : nameFromDirectory(basename(resolve(io.cwd, dir))));
  const interactive = io.interactive && options.yes !== true;

  let answers: ScaffoldAnswers;
  if (interactive) {
    const asked = await askAnswers(options, guess, io);
    if (asked === undefined) return fail('input ended before every question was answered; nothing was written');
    answers = asked;
  } else {
    const name = guess;
    if (name === undefined) {
      return fail('give a directory (`portico new my-integration`) or a name (`--name my-integration`)');
    }
    if (!isValidIntegrationName(name)) {
      return fail(
        `the directory name "${basename(resolve(io.cwd, dir ?? '.'))}" does not make a valid integration name; pass --name with ${NAME_RULE}`,
      );
    }
    const title = options.title ?? titleFromName(name);
    answers = {
      name,
      title,
      description: options.description ?? `${title}: an integration for Portico.`,
      organization: options.organization ?? DEFAULT_ORGANIZATION,
    };
  }
  for (const field of ['title', 'description', 'organization'] as const) {
    if (answers[field].trim() === '') return fail(`--${field} must not be empty`);
  }
  if (/\s/.test(answers.organization)) {
    return fail(`--organization "${answers.organization}" must be your organization's id or subdomain, without spaces`);
  }

  const target = resolve(io.cwd, dir ?? answers.name);
  const existing = await readdir(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (existing.length > 0) {
    return fail(`${relative(io.cwd, target) || '.'} already exists and is not empty; choose a new directory`);
  }

  const packages = scaffoldDependencies(packageSource());
  const files = scaffoldFiles(answers, {
    spec: packages.spec,
    overrides: packages.overrides,
    typescript: TYPESCRIPT_RANGE,
    vitest: VITEST_RANGE,
  });
  for (const [path, contents] of Object.entries(files)) {
    await mkdir(dirname(join(target, path)), { recursive: true });
    await writeFile(join(target, path), contents, { flag: 'wx' });
  }
  const check = await loadManifest(target);
  if (!check.ok) {
    throw new Error(`the scaffold did not pass its own check: ${JSON.stringify(check.errors)}`);
  }

  const relativeTarget = relative(io.cwd, target) || '.';
  const shown = /\s/.test(relativeTarget) ? JSON.stringify(relativeTarget) : relativeTarget;
  io.out(`Created ${answers.title} (${answers.name}) in ${shown}:\n`);
  for (const path of Object.keys(files).sort()) io.out(`  ${path}\n`);
  if (answers.organization === DEFAULT_ORGANIZATION) {
    io.out(
      `\nSet \`organization\` in platform-manifest.yaml to your organization's id or subdomain before publishing.\n`,
    );
  }
  if (packages.note) io.out(`\n${packages.note}\n`);
  io.out(`\nNext:\n  cd ${shown}\n  npm install\n  npx portico check\n  npm test\n  npx portico dev\n`);
  return 0;
}

async function askAnswers(
  options: NewOptions,
  guess: string | undefined,
  io: Io,
): Promise<ScaffoldAnswers | undefined> {
  const ask = async (label: string, fallback: string | undefined, valid: (answer: string) => string | undefined) => {
    for (;;) {
      const suffix = fallback ? ` (${fallback})` : '';
      const line = await io.ask(`${label}${suffix}: `);
      if (line === undefined) return undefined;
      const answer = line.trim() || fallback || '';
      const problem = valid(answer);
      if (problem === undefined) return answer;
      io.out(`  ${problem}\n`);
    }
  };
  const notEmpty = (answer: string) => (answer === '' ? 'please give a value' : undefined);

  const name =
    options.name ??
    (await ask('Name', guess && isValidIntegrationName(guess) ? guess : undefined, (answer) =>
      isValidIntegrationName(answer) ? undefined : `"${answer}" is not a valid name: use ${NAME_RULE}`,
    ));
  if (name === undefined) return undefined;
  const title = options.title ?? (await ask('Title', titleFromName(name), notEmpty));
  if (title === undefined) return undefined;
  const description =
    options.description ?? (await ask('Description', `${title}: an integration for Portico.`, notEmpty));
  if (description === undefined) return undefined;
  const organization =
    options.organization ??
    (await ask('Organization (id or subdomain)', DEFAULT_ORGANIZATION, (answer) =>
      /^\S+$/.test(answer) ? undefined : 'give the id or subdomain, without spaces',
    ));
  if (organization === undefined) return undefined;
  return { name, title, description, organization };
}
