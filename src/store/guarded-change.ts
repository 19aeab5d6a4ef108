// PostgreSQL: a batch of RRset writes (dns/rrset-batch.ts) and its zone change in one statement,
// with no transaction around it, planned against an unlocked read (zone-change.ts readZone), or
// against no read at all (below): two round trips to the server, or one, instead of five (begin,
// lock, writes, change, commit), where a batch's time goes (bench/README.md). The statement first
// locks the zone's row, if it is still at the version the batch was planned at (a `guard`); every
// part that writes is gated on that row, so when another writer changed the zone in between
// nothing is written and the caller reads again or commits the batch the locked way. Locks are
// taken in the locked way's order, the zone's row first, so the two never deadlock: every part
// waits for the guard before it writes.
//
// A batch planned without reading the store (on the zone's row as this process's last batch left
// it, and no RRsets at its names) names those names `absent`: the guard then holds only where the
// zone has no RRset at any of them. The statement does not read what is there when the guard fails
// (the caller reads it): with that read in it, its estimated cost made the server plan it afresh at
// every run instead of once (bench/README.md, session 21), which cost more than it saved.
import { sql } from 'kysely';
import type { Db } from './database.ts';
import { commitFailure } from './errors.ts';
import { prepared } from './prepared.ts';
import { rrsetRowsAtNames, rrsetWriteParts, storedByWrite, writtenRrsets, type RrsetWithRecords, type RrsetWrite } from './rrsets.ts';
import { zoneChangeAnswer, zoneChangeParts, type ZoneChangeWrite } from './zone-change.ts';

/** What a guarded change wrote: the store's zone version it took, and each write's RRset as storedByWrite says. */
export interface GuardedChangeResult {
  version: number;
  stored: (RrsetWithRecords | undefined)[];
}

/** What a batch was planned against: the zone's row at `version` and, at the names in `absent`, no RRsets. */
export interface GuardedBasis {
  version: number;
  /** Names planned as holding no RRset without having been read; empty when the batch read them. */
  absent: readonly string[];
}

/**
 * Does `writes` and `change` to the zone if it is still as `basis` says; undefined (and nothing
 * written) when it is not, or the zone is gone.
 */
export async function writeGuardedChange(
  db: Db,
  basis: GuardedBasis,
  writes: readonly RrsetWrite[],
  at: string,
  change: ZoneChangeWrite,
): Promise<GuardedChangeResult | undefined> {
  const gate = sql<boolean>`exists (select 1 from guard)`;
  const statement = prepared(sql<{ version: number; written: { i: number; rrset: RrsetWithRecords }[] }>`
    with guard as (
      select id from zones where id = ${change.zoneId} and version = ${basis.version}
        and not exists (${rrsetRowsAtNames(change.zoneId, basis.absent)})
      for update
    ),
    ${rrsetWriteParts(change.zoneId, writes, at, gate)},
    ${zoneChangeParts(change, gate)}
    ${zoneChangeAnswer(change.notice, sql`, (select coalesce(jsonb_agg(jsonb_build_object('i', w.i, 'rrset', w.rrset)), '[]'::jsonb) from (${writtenRrsets}) as w) as written`)}`);
  const { rows } = await statement.execute(db).catch((e: unknown) => {
    // It commits by itself: one whose answer the connection lost may have (pg-commit.ts).
    throw commitFailure(e);
  });
  const row = rows[0];
  return row === undefined ? undefined : { version: row.version, stored: storedByWrite(writes, row.written) };
}
