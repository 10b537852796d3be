import { Command, CommanderError, Option } from 'commander';
import { check } from './commands/check.js';
import { newIntegration } from './commands/new.js';
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
