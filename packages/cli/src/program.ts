import { TUNING_DEFAULTS, TUNING_SETTINGS } from '@portico/platform';
import { Command, CommanderError, Option } from 'commander';
import { check } from './commands/check.js';
import { DEFAULT_DEV_PORT, dev } from './commands/dev.js';
import { newIntegration } from './commands/new.js';
import { publishIntegration } from './commands/publish.js';
import { serve } from './commands/serve.js';
import type { Io } from './io.js';
import { VERSION } from './version.js';

/** Runs the `portico` command line with `argv` (without the node and script paths); answers the exit code. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  let exitCode = 0;
  const program = new Command('portico')
    .description('Build, check and publish Portico integrations.')
    .version(VERSION, '-v, --version')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true);

  program
    .command('new')
    .description('Create a new integration: a manifest, an entry script, package.json, tsconfig.json and a README.')
    .argument('[dir]', 'directory to create (default: the integration name)')
    .option('--name <name>', 'integration name: lowercase words joined by hyphens (default: from DIR)')
    .option('--title <title>', 'name shown in the product (default: from the name)')
    .option('--description <text>', 'short description')
    .option('--organization <id>', 'id or subdomain of the owning organization')
    .option('-y, --yes', 'ask nothing; use the flags and defaults (the default when not run in a terminal)')
    .addHelpText(
      'after',
      '\nExamples:\n  portico new my-integration\n  portico new my-integration --title "My Integration" --organization acme --yes\n',
    )
    .action(async (dir: string | undefined, options) => {
      exitCode = await newIntegration(dir, options, io);
    });

  program
    .command('check')
    .description('Validate platform-manifest.yaml and the files it names.')
    .argument('[dir]', 'directory holding platform-manifest.yaml', '.')
    .option('--json', 'print { valid, errors: [{ path, line, column, message }], warnings } as JSON')
    .option('--strict', 'fail on warnings too')
    .addOption(new Option('--internal', 'allow internal-only scopes (for publishers the operator marks internal)'))
    .addHelpText(
      'after',
      '\nPrints each problem as platform-manifest.yaml:LINE:COL: message.\nExit status: 0 when valid, 1 when not.\n',
    )
    .action(async (dir: string, options) => {
      exitCode = await check(dir, options, io);
    });

  program
    .command('dev')
    .description(
      'Run the integration in DIR on a local platform, installed in a dev organization, space and site; rebuild and reload it on every change.',
    )
    .argument('[dir]', 'directory holding platform-manifest.yaml', '.')
    .option('--port <port>', `port of the local platform (default ${DEFAULT_DEV_PORT}; the next free one if taken)`)
    .option('--fresh', 'start over: remove DIR/.portico-dev (its data, tokens and installations) first')
    .addHelpText(
      'after',
      `
Keeps its data and the admin token in DIR/.portico-dev/ between runs. Secrets named in the
manifest (\${{ env.NAME }}) are read from the environment or DIR/.env. Prints the dashboard
link, each installation's public endpoint, a line per reload and per dispatch, and the
integration's console output. Other portico commands run in DIR reach it without --api/--token.
Ctrl-C stops it. Exit status: 0 once stopped, 1 when it could not start.
`,
    )
    .action(async (dir: string, options) => {
      exitCode = await dev(dir, options, io);
    });

  const serveCommand = program
    .command('serve')
    .description('Run the Portico platform: the API, with SQLite under the data directory or PostgreSQL.')
    .option('--port <port>', 'port to listen on (PORTICO_PORT, default 8787; 0 picks a free one)')
    .option('--host <host>', 'address to listen on (PORTICO_HOST, default 127.0.0.1)')
    .option(
      '--data-dir <dir>',
      'where SQLite, the secret key and the admin token live (PORTICO_DATA_DIR, default ./.portico)',
    )
    .option('--database-url <url>', 'a postgres:// URL selects PostgreSQL (PORTICO_DATABASE_URL)')
    .option('--admin-token <token>', 'the operator token (PORTICO_ADMIN_TOKEN; else generated on first start)')
    .option('--public-url <url>', 'base URL of the public endpoints (PORTICO_PUBLIC_URL)')
    .option(
      '--allow-private-network',
      'let deliveries reach loopback and private addresses (PORTICO_ALLOW_PRIVATE_NETWORK=1)',
    )
    .option(
      '--secret-key <key>',
      '32 bytes, base64: encrypts secrets at rest (PORTICO_SECRET_KEY; else generated in the data dir)',
    )
    .option('--log-level <level>', 'fatal, error, warn, info, debug or silent (PORTICO_LOG_LEVEL, default info)');
  for (const setting of TUNING_SETTINGS) {
    const fallback = TUNING_DEFAULTS[setting.key];
    const shown =
      setting.unit === 'days' ? fallback / 86_400_000 : setting.unit === 'seconds' ? fallback / 1000 : fallback;
    serveCommand.option(
      `${setting.flag} <${setting.unit === 'count' ? 'n' : setting.unit}>`,
      `${setting.description} (${setting.env}, default ${shown})`,
    );
  }
  serveCommand.action(async (options) => {
    exitCode = await serve(options, io);
  });

  program
    .command('publish')
    .description('Check, bundle and publish the integration in DIR to a Portico platform.')
    .argument('[dir]', 'directory holding platform-manifest.yaml', '.')
    .option('--api <url>', 'the platform address (PORTICO_API), e.g. http://127.0.0.1:8787')
    .option('--token <token>', 'your API token (PORTICO_TOKEN)')
    .addHelpText('after', '\nSecrets named in the manifest (${{ env.NAME }}) are read from the environment.\n')
    .action(async (dir: string, options) => {
      exitCode = await publishIntegration(dir, options, io);
    });

  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; usage errors with 1.
      return error.exitCode;
    }
    throw error;
  }
  return exitCode;
}
