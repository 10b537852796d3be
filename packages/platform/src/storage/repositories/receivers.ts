/** What routing reads: the installations in a place that can receive its events (events/routing.ts). */
import { sql } from 'kysely';
import { prepared } from '../prepared.js';

/**
 * The installations in one place that can receive its events: active, below an organization
 * installation that is not paused; with their integration's latest version and the scopes their
 * organization granted (read here, so routing asks no second question per event). Those that would were they not paused (the installation or
 * its organization installation) come too, marked `paused`: routing records what they missed.
 *
 * A webhook installation comes with its live subscriptions switched on (`subscription_id` and the
 * rest; null for an installation without one) and, for each, its valid signing secrets (sealed,
 * newest first): one row per installation, subscription and secret. So fanning an event out to its
 * subscriptions (events/fan-out.ts) reads nothing more, and the first attempt of each delivery
 * signs with the secrets read here (each with its expiry: what routing keeps of this read holds
 * until the first of them, events/routing.ts).
 */
/** The tables `receiversIn` reads: what it answered holds until one of them is written (kept-reads.ts). */
export const RECEIVER_TABLES = ['installations', 'integrations', 'endpoints', 'signing_secrets', 'outbox'] as const;

export const receiversIn = prepared((db, kind: string, placeId: string, now: number) =>
  db
    .selectFrom('installations as i')
    .innerJoin('installations as parent', 'parent.id', 'i.parent_id')
    .innerJoin('integrations as g', 'g.name', 'i.integration_name')
    .leftJoin('endpoints as e', (join) =>
      join
        .onRef('e.installation_id', '=', 'i.id')
        .on('e.subscribed', '=', sql.lit(1))
        .on('e.removed_at', 'is', null)
        .on('e.enabled', '=', sql.lit(1)),
    )
    .leftJoin('signing_secrets as s', (join) =>
      join
        .onRef('s.installation_id', '=', 'e.installation_id')
        .on((eb) => eb.or([eb('s.expires_at', 'is', null), eb('s.expires_at', '>', now)])),
    )
    // What its organization granted (the ceiling of the events it receives), read here too.
    .select(['i.id', 'i.integration_name', 'g.latest_version', 'parent.granted_scopes'])
    // Whether it is owed a setup event: nothing routing hands over may overtake that.
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('outbox as s')
            .select('s.id')
            .whereRef('s.installation_id', '=', 'i.id')
            .where('s.dispatched_at', 'is', null)
            .where('s.event_id', 'is', null),
        )
        .as('setup_owed'),
    )
    .select([
      'e.id as subscription_id',
      'e.url',
      'e.destination',
      'e.event_types',
      'e.headers',
      'e.policy',
      'e.disabled_reason',
      'e.disabled_at',
      's.secret',
      's.expires_at as secret_expires_at',
    ])
    .where('i.target_type', '=', kind as 'space' | 'site')
    .where('i.target_id', '=', placeId)
    .where('i.uninstalled_at', 'is', null)
    .select(sql<number>`case when i.status = 'paused' or parent.status = 'paused' then 1 else 0 end`.as('paused'))
    .where('i.status', 'in', ['active', 'paused'])
    .orderBy('i.created_at')
    .orderBy('i.id')
    .orderBy('e.created_at')
    .orderBy('e.id')
    .orderBy('s.id', 'desc'),
);
