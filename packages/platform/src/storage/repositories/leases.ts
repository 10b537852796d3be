/**
 * Claimed rows' ids by the lease they were claimed with, in chunks of at most `chunk`: what an
 * update that gives rows back or moves their leases takes (it checks each row's lease).
 */
export function* idsByLease<Id>(
  rows: Iterable<{ id: Id; claimed_until: number | null }>,
  chunk: number,
): Generator<[lease: number, ids: Id[]]> {
  const groups = new Map<number, Id[]>();
  for (const row of rows) {
    const lease = row.claimed_until as number;
    const ids = groups.get(lease);
    if (ids) ids.push(row.id);
    else groups.set(lease, [row.id]);
  }
  for (const [lease, ids] of groups) for (let i = 0; i < ids.length; i += chunk) yield [lease, ids.slice(i, i + chunk)];
}
