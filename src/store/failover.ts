// The agreed state of health-checked records and each RRset's log of their changes. A change is
// written as a compare-and-set on the state row: whichever node writes it first logs it, so the log
// holds one entry per change however many nodes saw it (docs/dns-server.md, "Health checks").
import type { Selectable } from 'kysely';
import { notifyHealthChange } from '../events/change-feed.ts';
import type { Db, Engine } from './database.ts';
import { inListMax } from './rrset-records.ts';
import type { FailoverStatesTable } from './schema.ts';

export type FailoverState = Selectable<FailoverStatesTable>;

/** Log entries kept per RRset: older ones are dropped as new ones come. */
export const failoverLogKept = 100;

export interface Verdict {
  rrsetId: number;
  address: string;
  /** The state the deciding node held; undefined when no state was stored yet. */
  from: boolean | undefined;
  to: boolean;
  /** Unix seconds. */
  at: number;
}

/** The stored states of these RRsets' records. */
export async function failoverStates(db: Db, rrsetIds: readonly number[]): Promise<FailoverState[]> {
  const rows: FailoverState[] = [];
  for (let i = 0; i < rrsetIds.length; i += inListMax) {
    rows.push(...(await db.selectFrom('failover_states').selectAll().where('rrset_id', 'in', rrsetIds.slice(i, i + inListMax)).execute()));
  }
  return rows;
}

/**
 * Stores a verdict if the stored state is still `from`, logs it when it is a change (a first verdict
 * of down counts as one: a record counts as up until checked), and tells the other nodes. False when
 * another node got there first: the caller re-reads the state.
 */
export async function storeVerdict(db: Db, engine: Engine, verdict: Verdict): Promise<boolean> {
  const { rrsetId, address, from, to, at } = verdict;
  return db.transaction().execute(async (tx) => {
    const written =
      from === undefined
        ? await tx
            .insertInto('failover_states')
            .values({ rrset_id: rrsetId, address, up: to ? 1 : 0, changed_at: at })
            .onConflict((oc) => oc.columns(['rrset_id', 'address']).doNothing())
            .returning('rrset_id')
            .executeTakeFirst()
        : await tx
            .updateTable('failover_states')
            .set({ up: to ? 1 : 0, changed_at: at })
            .where('rrset_id', '=', rrsetId)
            .where('address', '=', address)
            .where('up', '=', from ? 1 : 0)
            .returning('rrset_id')
            .executeTakeFirst();
    if (written === undefined) return false;
    if ((from ?? true) !== to) {
      await tx.insertInto('failover_log').values({ rrset_id: rrsetId, address, action: to ? 'up' : 'down', time: at }).execute();
      const oldest = await tx
        .selectFrom('failover_log')
        .select('id')
        .where('rrset_id', '=', rrsetId)
        .orderBy('id', 'desc')
        .offset(failoverLogKept)
        .limit(1)
        .executeTakeFirst();
      if (oldest !== undefined) await tx.deleteFrom('failover_log').where('rrset_id', '=', rrsetId).where('id', '<=', oldest.id).execute();
      await notifyHealthChange(tx, engine, { rrset_id: rrsetId, address, up: to });
    }
    return true;
  });
}

export async function failoverState(db: Db, rrsetId: number, address: string): Promise<FailoverState | undefined> {
  return db.selectFrom('failover_states').selectAll().where('rrset_id', '=', rrsetId).where('address', '=', address).executeTakeFirst();
}

/** An RRset's log, newest first, and how many entries it holds. */
export async function failoverLog(db: Db, rrsetId: number, offset: number, limit: number) {
  const [entries, count] = await Promise.all([
    db
      .selectFrom('failover_log')
      .select(['action', 'address', 'time'])
      .where('rrset_id', '=', rrsetId)
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    db.selectFrom('failover_log').select((eb) => eb.fn.countAll<number>().as('n')).where('rrset_id', '=', rrsetId).executeTakeFirstOrThrow(),
  ]);
  return { entries, total: count.n };
}
