import { TUNING_DEFAULTS, TUNING_SETTINGS } from '@portico/platform/config';
import { Command, CommanderError, Option } from 'commander';
import { SERVER_FLAGS } from './api-target.js';
import { EXIT_USAGE } from './command-error.js';
import { DEFAULT_DEV_PORT } from './dev-server-file.js';
import { EVENT_KINDS } from './event-fields.js';
import type { Io } from './io.js';
import { DEFAULT_WAIT_SECONDS } from './numbers.js';
import { VERSION } from './version.js';

// Each command's module is loaded when it runs: the platform (for serve and dev) takes most of
// a second to load, which the commands that only talk to a server should not wait for.
/** Runs the `portico` command line with `argv` (without the node and script paths); answers the exit code. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  let exitCode = 0;
  const program = new Command('portico')
    .description('Create, check, run and publish Portico integrations; run the platform and talk to it.')
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
      exitCode = await (await import('./commands/new.js')).newIntegration(dir, options, io);
    });

  program
    .command('check')
    .description('Validate platform-manifest.yaml (or a GitBook-dialect gitbook-manifest.yaml) and the files it names.')
    .argument('[dir]', 'directory holding platform-manifest.yaml or gitbook-manifest.yaml', '.')
    .option('--json', 'print { valid, errors: [{ path, line, column, message }], warnings } as JSON')
    .option('--strict', 'fail on warnings too')
    .addOption(new Option('--internal', 'allow internal-only scopes (for publishers the operator marks internal)'))
    .option('--env <name>', 'for a gitbook-manifest.yaml: apply its envs.<name>')
    .addHelpText(
      'after',
      '\nPrints each problem as platform-manifest.yaml:LINE:COL: message (gitbook-manifest.yaml:… for the GitBook dialect, whose\nkeys without a meaning in Portico are warnings).\nExit status: 0 when valid, 1 when not.\n',
    )
    .action(async (dir: string, options) => {
      exitCode = await (await import('./commands/check.js')).check(dir, options, io);
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
      exitCode = await (await import('./commands/dev.js')).dev(dir, options, io);
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
      '--frame-ancestors <origins>',
      'origins whose pages may frame the dashboard, space-separated (PORTICO_FRAME_ANCESTORS)',
    )
    .option('--metrics-token <token>', 'GET /metrics answers only this Bearer token (PORTICO_METRICS_TOKEN; else open)')
    .option(
      '--alert-url <url>',
      'where operator alerts are POSTed, signed (PORTICO_ALERT_URL; an https URL, http with --allow-private-network)',
    )
    .option(
      '--delivery-policy <name>',
      'the delivery policy of installations that choose none: standard or extended (PORTICO_DELIVERY_POLICY; default standard)',
    )
    .option(
      '--secret-key <key>',
      '32 bytes, base64: encrypts secrets at rest (PORTICO_SECRET_KEY; else generated in the data dir)',
    )
    .option('--log-level <level>', 'fatal, error, warn, info, debug or silent (PORTICO_LOG_LEVEL, default info)')
    .option(
      '--exit-with-parent',
      'stop, as on SIGTERM, once the process that started it has ended, even killed with SIGKILL (npm start uses it)',
    );
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
    exitCode = await (await import('./commands/serve.js')).serve(options, io);
  });

  program
    .command('publish')
    .description('Check, bundle and publish the integration in DIR to a Portico platform.')
    .argument('[dir]', 'directory holding platform-manifest.yaml or gitbook-manifest.yaml', '.')
    .option('--api <url>', 'the platform address (PORTICO_API), e.g. http://127.0.0.1:8787')
    .option('--token <token>', 'your API token (PORTICO_TOKEN)')
    .option('--env <name>', 'for a gitbook-manifest.yaml: apply its envs.<name>')
    .addHelpText('after', '\nSecrets named in the manifest (${{ env.NAME }}) are read from the environment.\n')
    .action(async (dir: string, options) => {
      exitCode = await (await import('./commands/publish.js')).publishIntegration(dir, options, io);
    });

  addServerCommands(program, io, (code) => {
    exitCode = code;
  });

  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; usage errors (an unknown command or
      // option, a missing argument) with 2.
      return error.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    throw error;
  }
  return exitCode;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** --api and --token, as every command that talks to a server has them. */
function serverOptions(command: Command): Command {
  return command.option('--api <url>', SERVER_FLAGS.api).option('--token <token>', SERVER_FLAGS.token);
}

const EXIT_STATUS = (ok: string) => `Exit status: 0 ${ok}, 1 refused or failed, 2 usage.`;

/** The commands that talk to a running server: emit, tail, deliveries, endpoints, scopes, redeliver, recover, install, configure. */
function addServerCommands(program: Command, io: Io, done: (code: number) => void) {
  const kinds = (how: string) =>
    EVENT_KINDS.filter((k) => k.how === how)
      .map((k) => k.type)
      .join(', ');
  serverOptions(
    program
      .command('emit')
      .description('Send a platform event (every field has a sensible value) and print its eventId.')
      .argument('<type>', 'the event type, e.g. site_view, space_content_updated')
      .option('--space <id>', 'the space it happens in (default: dev-space of portico dev)')
      .option('--site <id>', 'the site it happens on (default: dev-site of portico dev)')
      .option('--installation <id>', 'setup events and ui_render: the installation (default: portico dev’s)')
      .option('--field <key=value>', 'set a field; dotted keys reach nested ones (visitor.ip=…); repeatable', collect)
      .option('--data <json>', 'fields as a JSON object, merged over the defaults (--field wins)')
      .option('--wait', 'print each dispatch and delivery it causes, until they end')
      .option('--timeout <seconds>', `how long --wait waits (default ${DEFAULT_WAIT_SECONDS})`)
      .option('--json', 'print JSON: { eventId, duplicate, event }, with --wait the whole trace'),
  )
    .addHelpText(
      'after',
      `
Events sent through POST /v1/events:
  ${kinds('ingested')}
Setup events (${kinds('setup')})
are the platform's own: emit saves the installation's configuration unchanged, which sends one.
ui_render renders a component (--field componentId=… props.x=…; default: the integration's
first component; editable=false renders a block as a reader sees it) and prints what it rendered.

Examples:
  portico emit site_view --site docs
  portico emit space_content_updated --field revisionId=r42 --wait
  portico emit page_feedback --field feedback.rating=bad --field feedback.comment="Too short"

${EXIT_STATUS('sent (with --wait: nothing failed)')}
`,
    )
    .action(async (type: string, options) => done(await (await import('./commands/emit.js')).emit(type, options, io)));

  serverOptions(
    program
      .command('tail')
      .description(
        'Follow the dispatches (with the integration’s logs) and deliveries of installations as they happen.',
      )
      .argument(
        '[installation...]',
        'installations to follow (default: those in portico dev’s organization, space and site)',
      )
      .option('--type <type>', 'only this event type (comma-separated or repeated)', collect)
      .option('--status <status>', 'only ok, failed, pending, delivered, or an HTTP status such as 500')
      .option('--since <time>', 'also what happened since then: ISO time, Unix ms, or 30s, 15m, 2h, 1d ago')
      .option('--count <n>', 'stop after n events')
      .option('--json', 'one JSON object per line: { kind: "dispatch" | "delivery", installationId, … }'),
  )
    .addHelpText(
      'after',
      `
Ctrl-C stops it. ${EXIT_STATUS('stopped')}
`,
    )
    .action(async (installations: string[], options) =>
      done(await (await import('./commands/tail.js')).tail(installations, options, io)),
    );

  serverOptions(
    program
      .command('deliveries')
      .description('List webhook deliveries with their attempts, newest first.')
      .argument('[installation...]', 'installations (default: those in portico dev’s organization, space and site)')
      .option('--status <status>', 'pending, delivered or failed')
      .option('--event <eventId>', 'only the deliveries of this event')
      .option('--limit <n>', 'at most n (1-200, default 50)')
      .option('--json', 'print the deliveries as a JSON array'),
  )
    .addHelpText(
      'after',
      `
${EXIT_STATUS('listed (also none)')}
`,
    )
    .action(async (installations: string[], options) =>
      done(await (await import('./commands/deliveries.js')).deliveries(installations, options, io)),
    );

  serverOptions(
    program
      .command('endpoints')
      .description(
        'List webhook subscriptions (the configured one first, with their events, headers and policy) and the other URLs deliveries went to, with their health.',
      )
      .argument('[installation...]', 'installations (default: those in portico dev’s organization, space and site)')
      .option('--json', 'print the endpoints as a JSON array'),
  )
    .addHelpText(
      'after',
      `
${EXIT_STATUS('listed (also none)')}
`,
    )
    .action(async (installations: string[], options) =>
      done(await (await import('./commands/endpoints.js')).endpoints(installations, options, io)),
    );

  serverOptions(
    program
      .command('scopes')
      .description(
        'Show what installations were granted and the new permissions their integration’s latest version asks for; --accept grants them (an admin of the organization, or the operator).',
      )
      .argument(
        '[installation...]',
        'organization installations (default: every pending request; needs the operator’s token)',
      )
      .option('--accept', 'grant what each asks for, as shown')
      .option('--json', 'print the installations’ scopes as a JSON array'),
  )
    .addHelpText(
      'after',
      `
${EXIT_STATUS('shown or accepted')}
`,
    )
    .action(async (installations: string[], options) =>
      done(await (await import('./commands/scopes.js')).scopes(installations, options, io)),
    );

  serverOptions(
    program
      .command('redeliver')
      .description('Deliver again: a new delivery with the same body and eventId; prints its id.')
      .argument('<delivery...>', 'the deliveries to send again')
      .option('--wait', 'follow each until it is delivered or failed')
      .option('--timeout <seconds>', `how long --wait waits (default ${DEFAULT_WAIT_SECONDS})`)
      .option('--json', 'print the new deliveries as JSON'),
  )
    .addHelpText(
      'after',
      `
${EXIT_STATUS('redelivered (with --wait: delivered)')}
`,
    )
    .action(async (ids: string[], options) =>
      done(await (await import('./commands/redeliver.js')).redeliver(ids, options, io)),
    );

  serverOptions(
    program
      .command('recover')
      .description('Redeliver every failed delivery of an installation since a time, as a background job.')
      .argument('<installation>', 'the installation')
      .requiredOption('--since <time>', 'ISO time, Unix ms, or a while ago: 30m, 2h, 1d')
      .option('--until <time>', 'up to this time (default: now)')
      .option('--wait', 'follow the job until it ends')
      .option('--timeout <seconds>', `how long --wait waits (default ${DEFAULT_WAIT_SECONDS * 4})`)
      .option('--json', 'print the job as JSON'),
  )
    .addHelpText(
      'after',
      `
Prints the job's id. ${EXIT_STATUS('started (with --wait: every one redelivered)')}
`,
    )
    .action(async (installation: string, options) =>
      done(await (await import('./commands/recover.js')).recover(installation, options, io)),
    );

  serverOptions(
    program
      .command('install')
      .description('Install an integration in an organization and into spaces and sites (what exists is kept).')
      .argument('<integration>', 'the integration’s name')
      .option('--org <id>', 'the organization (default: portico dev’s)')
      .option('--space <id>', 'also install into this space; repeatable', collect)
      .option('--site <id>', 'also install into this site; repeatable', collect)
      .option('--share-token <token>', 'for an unlisted integration of another organization')
      .option('--json', 'print { organization, spaces, sites } as JSON'),
  )
    .addHelpText(
      'after',
      `
Prints each installation as ID TARGET-TYPE TARGET STATUS. ${EXIT_STATUS('installed')}
`,
    )
    .action(async (integration: string, options) =>
      done(await (await import('./commands/install.js')).install(integration, options, io)),
    );

  serverOptions(
    program
      .command('configure')
      .description('Set configuration properties of an installation and print its status.')
      .argument('<installation>', 'the installation')
      .argument('[key=value...]', 'properties; values are JSON when they parse (true, 3, null removes), else strings')
      .option(
        '--delivery-policy <name>',
        'a webhook installation: how long failed deliveries are retried, standard (1, 2, 4 s) or extended (up to 3 days)',
      )
      .option('--json', 'print { status, configuration, errors } as JSON'),
  )
    .addHelpText(
      'after',
      `
Examples:
  portico configure inst_123 url=https://example.com/hook site_view=true
  portico configure inst_123 --delivery-policy extended

${EXIT_STATUS('saved (also when still pending)')}
`,
    )
    .action(async (installation: string, settings: string[], options) =>
      done(await (await import('./commands/configure.js')).configure(installation, settings, options, io)),
    );
}
