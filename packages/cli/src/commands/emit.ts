import { randomBytes } from 'node:crypto';
import type { Schemas } from '@portico/client';
import type { DispatchView } from '@portico/platform';
import type { ApiClient } from '../api-client.js';
import { resolveTarget, type ServerOptions, type Target } from '../api-target.js';
import { CommandError, EXIT_FAILURE, EXIT_OK, runCommand, usage } from '../command-error.js';
import { SourceMaps } from '../dev/stack-traces.js';
import type { FoundDevServer } from '../dev-server-file.js';
import { type PlaceKind, targetReason } from '../dev-target.js';
import { formatDispatch } from '../dispatch-lines.js';
import {
  applyFields,
  type EventKind,
  eventKind,
  isObject,
  mergeDeep,
  type Places,
  parseData,
} from '../event-fields.js';
import { finalOutcome, followEvent } from '../event-follower.js';
import { InstallationLabels } from '../installation-labels.js';
import type { Io } from '../io.js';
import { DEFAULT_WAIT_SECONDS, parseSeconds } from '../numbers.js';

export interface EmitOptions extends ServerOptions {
  space?: string;
  site?: string;
  installation?: string;
  field?: string[];
  data?: string;
  wait?: boolean;
  timeout?: string;
  json?: boolean;
}

/**
 * `portico emit TYPE`: sends a platform event with a value for every field, to the dev platform
 * or any server, and prints its eventId; with --wait, each dispatch and delivery it causes.
 * Exit status: 0 sent (and, with --wait, nothing failed), 1 refused or failed, 2 usage.
 */
export function emit(type: string, options: EmitOptions, io: Io, env: NodeJS.ProcessEnv = process.env) {
  return runCommand('emit', io, async () => {
    const kind = eventKind(type);
    const timeoutMs = parseSeconds(options.timeout ?? String(DEFAULT_WAIT_SECONDS), '--timeout') * 1000;
    const data = options.data === undefined ? {} : parseData(options.data);
    const target = resolveTarget(options, io, env);
    if (kind.how === 'ingested') return emitIngested(kind, data, options, target, io, timeoutMs);
    if (options.space !== undefined || options.site !== undefined) {
      throw usage(`${kind.type} goes to one installation, not to a space or site: give --installation ID`);
    }
    if (kind.how === 'setup') return emitSetup(kind, data, options, target, io, timeoutMs);
    return emitRender(data, options, target, io, timeoutMs);
  });
}

async function emitIngested(
  kind: Extract<EventKind, { how: 'ingested' }>,
  data: Record<string, unknown>,
  options: EmitOptions,
  { client, dev }: Target,
  io: Io,
  timeoutMs: number,
): Promise<number> {
  if (options.installation !== undefined) {
    throw usage(
      `${kind.type} is sent to a ${kind.place === 'site' ? 'site' : 'space'}, and from there to every installation in it: give --${kind.place === 'site' ? 'site' : 'space'} ID, not --installation`,
    );
  }
  if (kind.place === 'space' && options.site !== undefined) {
    throw usage(`${kind.type} happens in a space: give --space ID, not --site`);
  }
  if (kind.place === 'site' && options.space !== undefined) {
    throw usage(`${kind.type} happens on a site: give --site ID, not --space`);
  }
  if (dev !== undefined) checkDevPlaces(kind, data, options, dev, io);
  const places: Places = {
    space: options.space ?? (kind.place !== 'site' ? dev?.space : undefined),
    site: options.site ?? (kind.place !== 'space' ? dev?.site : undefined),
    unique: randomBytes(6).toString('hex'),
  };
  const needs = kind.place === 'space and site' ? (['site', 'space'] as const) : ([kind.place] as const);
  for (const place of needs) {
    if (places[place] !== undefined || data[`${place}Id`] !== undefined) continue;
    if (place === 'space' && places.site !== undefined) places.space = await firstSpaceOfSite(client, places.site);
    if (places[place] === undefined) {
      throw usage(`${kind.type} needs a ${place}: give --${place} ID (or run portico dev in this directory)`);
    }
  }
  const event = applyFields(mergeDeep({ type: kind.type, ...kind.fields(places) }, data), options.field ?? [], STRINGS);
  if (event.type !== kind.type)
    throw usage(`the event's type is ${kind.type}; do not set another with --field or --data`);
  // The server checks the event against its schema (and says what is wrong); here it is only built.
  const sent = await client.call(client.portico.POST('/v1/events', { body: event as Schemas['EventInput'] }));
  const where = [
    event.spaceId !== undefined ? `space ${event.spaceId}` : '',
    event.siteId !== undefined ? `site ${event.siteId}` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  if (sent.duplicate) {
    io.err(
      `portico emit: ${sent.eventId} was accepted before: this is a duplicate, and nothing is sent again (leave eventId out for a new one)\n`,
    );
  }
  if (!options.wait) {
    if (options.json) io.out(`${JSON.stringify({ eventId: sent.eventId, duplicate: sent.duplicate, event })}\n`);
    else io.out(`${sent.eventId}\n`);
    return EXIT_OK;
  }
  if (!options.json) {
    io.out(`${sent.eventId}\n`);
    io.err(`portico emit: ${kind.type} sent to ${where}; waiting for what it causes (at most ${timeoutMs / 1000} s)\n`);
  }
  const labels = new InstallationLabels(client);
  const result = await followEvent(client, sent.eventId, {
    timeoutMs,
    labels,
    print: options.json ? undefined : io.out,
  });
  if (options.json) {
    io.out(`${JSON.stringify({ duplicate: sent.duplicate, event, over: result.over, ...result.trace })}\n`);
  }
  const { trace } = result;
  if (!result.over) {
    const waiting = trace.routedAt === null ? ['routing'] : [];
    for (const owed of trace.installations) {
      if (!finalOutcome(owed.outcome)) {
        waiting.push(`the dispatch to ${await labels.label(owed.installationId)} (${owed.outcome ?? 'not yet sent'})`);
      }
    }
    for (const delivery of trace.deliveries) {
      if (delivery.status === 'pending') waiting.push(`the delivery ${delivery.id} to ${delivery.url}`);
    }
    throw new CommandError(
      `gave up waiting after ${timeoutMs / 1000} s for ${waiting.join(', ')} (--timeout SECONDS waits longer)`,
    );
  }
  if (trace.installations.length === 0 && trace.deliveries.length === 0) {
    io.err(
      `portico emit: no installation received ${kind.type}: none in ${where} is active, allowed by its scopes and handles it or subscribed to it\n`,
    );
  }
  for (const owed of trace.installations) {
    if (owed.outcome?.startsWith('skipped')) {
      io.err(`portico emit: ${await labels.label(owed.installationId)} was ${owed.outcome}\n`);
    }
  }
  if (result.failed) {
    io.err(`portico emit: a dispatch or a delivery of ${sent.eventId} failed (see above)\n`);
    return EXIT_FAILURE;
  }
  return EXIT_OK;
}

/**
 * In a `portico dev` directory an event goes by default to the dev space and site the integration
 * is installed in: one in a kind of place its target leaves out is refused, naming the target,
 * unless a place is given (something else may be installed there). The dev place itself, given
 * explicitly, is sent to with a note.
 */
function checkDevPlaces(
  kind: Extract<EventKind, { how: 'ingested' }>,
  data: Record<string, unknown>,
  options: EmitOptions,
  dev: FoundDevServer,
  io: Io,
): void {
  const kinds: PlaceKind[] = kind.place === 'space and site' ? ['space', 'site'] : [kind.place];
  const missing = kinds.filter((place) => dev.installations[place] === undefined);
  if (missing.length === 0) return;
  const given = kinds.filter((place) => options[place] !== undefined || data[`${place}Id`] !== undefined);
  const name = dev.integration ?? 'the integration';
  for (const place of missing) {
    if (options[place] === dev[place]) {
      io.err(`portico emit: note: ${name} is not installed in the ${place} ${dev[place]}: ${reason(dev)}\n`);
    }
  }
  // Sent where it is installed (page_feedback on the dev site of a `target: site` integration), or where asked.
  if (given.length > 0 || missing.length < kinds.length) return;
  const where = missing.map((place) => `the ${place} ${dev[place]}`).join(' or ');
  const flags = missing.map((place) => `--${place} ID`).join(' or ');
  const happens = { space: 'in a space', site: 'on a site', 'space and site': 'in a space and on a site' }[kind.place];
  throw usage(
    `${kind.type} happens ${happens}, and ${name} is not installed in ${where}: ${reason(dev)}; give ${flags} to send it elsewhere`,
  );
}

/** Why the dev integration is not installed in a place portico dev seeded. */
function reason(dev: FoundDevServer): string {
  return dev.target !== undefined ? targetReason(dev.target) : 'portico dev did not install it there';
}

/** Fields that are strings whatever they look like. */
const STRINGS = new Set(['eventId', 'spaceId', 'siteId', 'pageId', 'revisionId', 'url', 'referrer']);

/** page_feedback names a space too: the first space of the site's organization. */
async function firstSpaceOfSite(client: ApiClient, site: string): Promise<string | undefined> {
  const found = await client.call(client.portico.GET('/v1/sites/{id}', { params: { path: { id: site } } }));
  const org = await client.call(
    client.portico.GET('/v1/orgs/{org}', { params: { path: { org: found.organization } } }),
  );
  return org.spaces[0]?.id;
}

/**
 * Setup events are the platform's own: it sends one after every save of an installation's
 * configuration, valid or not. Emit saves the configuration unchanged and waits for that dispatch,
 * whose eventId (`setup_…`) it prints.
 */
async function emitSetup(
  kind: Extract<EventKind, { how: 'setup' }>,
  data: Record<string, unknown>,
  options: EmitOptions,
  { client, dev }: Target,
  io: Io,
  timeoutMs: number,
): Promise<number> {
  if ((options.field ?? []).length > 0 || Object.keys(data).length > 0) {
    throw usage(
      `${kind.type} has no fields to set: the platform sends it with the installation's configuration (change that with portico configure)`,
    );
  }
  const id = options.installation ?? dev?.installations[kind.level];
  if (id === undefined && dev !== undefined && kind.level !== 'organization') {
    const setups = [
      'installation_setup',
      ...(['space', 'site'] as const).flatMap((place) =>
        dev.installations[place] !== undefined ? [`${place}_installation_setup`] : [],
      ),
    ];
    throw usage(
      `${kind.type} goes to a ${kind.level} installation, and ${dev.integration ?? 'the integration'} is not installed in the ${kind.level} ${dev[kind.level]}: ${reason(dev)}; send ${setups.join(' or ')}, or give --installation ID`,
    );
  }
  if (id === undefined) {
    throw usage(`${kind.type} goes to one ${kind.level} installation: give --installation ID`);
  }
  const labels = new InstallationLabels(client);
  const installation = await readInstallation(client, id, labels);
  if (installation.target.type !== kind.level) {
    const right = {
      organization: 'installation_setup',
      space: 'space_installation_setup',
      site: 'site_installation_setup',
    }[installation.target.type];
    throw usage(
      `${id} is a ${installation.target.type} installation: ${kind.type} goes to ${kind.level} installations (send it ${right})`,
    );
  }
  if (installation.integration === 'webhook') {
    const integration = await client.call(
      client.portico.GET('/v1/integrations/{name}', { params: { path: { name: 'webhook' } } }),
    );
    if (integration.organization === 'portico') {
      throw new CommandError(
        `${await labels.label(id)} is the built-in webhook integration's: it runs no code and is sent no setup event (its configuration is its subscription; see it with portico endpoints ${id})`,
      );
    }
  }
  const before = await latestDispatchId(client, id);
  const saved = await client.call(
    client.portico.PATCH('/v1/installations/{id}/configuration', { params: { path: { id } }, body: {} }),
  );
  const dispatch = await nextDispatch(client, id, kind.type, before, timeoutMs);
  const label = await labels.label(id);
  if (dispatch === undefined) {
    throw new CommandError(
      `${kind.type} was owed to ${label} (its configuration saved unchanged, status ${saved.status}) but not dispatched within ${timeoutMs / 1000} s (--timeout SECONDS waits longer)`,
    );
  }
  if (options.json) io.out(`${JSON.stringify({ eventId: dispatch.eventId, installationId: id, dispatch })}\n`);
  else {
    io.out(`${dispatch.eventId}\n`);
    if (options.wait) io.out(formatDispatch(dispatch, label, new SourceMaps(io.cwd)));
  }
  return options.wait && !ok(dispatch) ? EXIT_FAILURE : EXIT_OK;
}

/** `ui_render`: renders a component of the installation (props, state, action and editable from --field/--data). */
async function emitRender(
  data: Record<string, unknown>,
  options: EmitOptions,
  { client, dev }: Target,
  io: Io,
  timeoutMs: number,
): Promise<number> {
  // The space installation, else the site's, else the organization's: the first its target allows.
  const id =
    options.installation ?? dev?.installations.space ?? dev?.installations.site ?? dev?.installations.organization;
  if (id === undefined) throw usage('ui_render renders a component of one installation: give --installation ID');
  const input = applyFields(data, options.field ?? [], new Set(['componentId']));
  const unknown = Object.keys(input).filter(
    (key) => !['componentId', 'props', 'state', 'action', 'editable'].includes(key),
  );
  if (unknown.length > 0) {
    throw usage(`ui_render takes componentId, props, state, action and editable, not ${unknown.join(', ')}`);
  }
  if (input.editable !== undefined && typeof input.editable !== 'boolean') {
    throw usage('ui_render: editable must be true or false (false renders a block as a reader sees it)');
  }
  for (const key of ['props', 'state', 'action'] as const) {
    if (input[key] !== undefined && !isObject(input[key])) throw usage(`ui_render: ${key} must be an object`);
  }
  const labels = new InstallationLabels(client);
  const installation = await readInstallation(client, id, labels);
  let componentId = input.componentId === undefined ? undefined : String(input.componentId);
  if (componentId === undefined) {
    const integration = await client.call(
      client.portico.GET('/v1/integrations/{name}', { params: { path: { name: installation.integration } } }),
    );
    componentId = integration.components?.[0]?.id;
    if (componentId === undefined) {
      throw new CommandError(`${installation.integration} defines no components: there is nothing to render`);
    }
  }
  const before = options.wait ? await latestDispatchId(client, id) : 0;
  const { componentId: _, ...body } = input;
  const rendered = await client.call(
    client.portico.POST('/v1/installations/{id}/components/{componentId}/render', {
      params: { path: { id, componentId } },
      body: body as Schemas['RenderInput'],
    }),
  );
  io.out(
    `${JSON.stringify(options.json ? { installationId: id, componentId, ...rendered } : rendered, null, options.json ? 0 : 2)}\n`,
  );
  if (options.wait) {
    const dispatch = await nextDispatch(client, id, 'ui_render', before, timeoutMs);
    if (dispatch && !options.json) io.err(formatDispatch(dispatch, await labels.label(id), new SourceMaps(io.cwd)));
  }
  return EXIT_OK;
}

async function readInstallation(client: ApiClient, id: string, labels: InstallationLabels) {
  const installation = await client.call(client.portico.GET('/v1/installations/{id}', { params: { path: { id } } }));
  labels.remember(installation);
  return installation;
}

async function latestDispatchId(client: ApiClient, id: string): Promise<number> {
  const latest = await dispatchesOf(client, id);
  return latest[0]?.id ?? 0;
}

async function dispatchesOf(client: ApiClient, id: string): Promise<DispatchView[]> {
  return client.call(client.portico.GET('/v1/installations/{id}/dispatches', { params: { path: { id } } }));
}

/** The first dispatch of `type` to the installation after `after` (an id), polled until `timeoutMs`. */
async function nextDispatch(
  client: ApiClient,
  id: string,
  type: string,
  after: number,
  timeoutMs: number,
): Promise<DispatchView | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const latest = await dispatchesOf(client, id);
    const found = latest.filter((d) => d.id > after && d.type === type).at(-1);
    if (found) return found;
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const ok = (dispatch: DispatchView) => dispatch.status >= 200 && dispatch.status < 300;
