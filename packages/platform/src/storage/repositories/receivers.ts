/** What routing reads: the installations in a place that can receive its events (events/routing.ts). */
import { sql } from 'kysely';
import { prepared } from '../prepared.js';

/**
 * The installations in one place that can receive its events: active, below an organization
 * installation that is not paused; with their integration's latest version (read here, so routing
 * asks no second question per event). Those that would were they not paused (the installation or
 * its organization installation) come too, marked `paused`: routing records what they missed.
 */
export const receiversIn = prepared((db, kind: string, placeId: string) =>
  db
    .selectFrom('installations as i')
    .innerJoin('installations as parent', 'parent.id', 'i.parent_id')
    .innerJoin('integrations as g', 'g.name', 'i.integration_name')
    .select(['i.id', 'i.integration_name', 'g.latest_version'])
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
    .where('i.target_type', '=', kind as 'space' | 'site')
    .where('i.target_id', '=', placeId)
    .where('i.uninstalled_at', 'is', null)
    .select(sql<number>`case when i.status = 'paused' or parent.status = 'paused' then 1 else 0 end`.as('paused'))
    .where('i.status', 'in', ['active', 'paused'])
    .orderBy('i.created_at'),
);
