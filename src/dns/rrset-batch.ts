// RRset writes of one zone that arrive while an earlier one commits are committed together, in one
// transaction (group commit): one zone lock, version bump, journal entry, NOTIFY and hand-over to
// the DNS threads for all of them, instead of one each. The serial still steps once per write. Each write still answers only
// once every DNS thread serves it, and each gets its own outcome: a write refused by the rules (an
// ApiError, thrown before it writes anything) fails alone. Any other error rolls the whole batch
// back, and its writes are then committed one by one, so that error reaches only the write that
// caused it. A lone write is committed at once, as before; the queue is per zone and per store.
import { ApiError } from '../errors.ts';
import type { Db, Store } from '../store/database.ts';
import type { RrsetWithRecords } from '../store/rrsets.ts';
import type { ZoneRow } from '../store/zones.ts';
import { commitZoneChange, type RrsetChanges } from './commit.ts';
import type { DnsContext } from './context.ts';

/** What one RRset write did: every RRset at `changedNames` after it, and what its webhook says. */
export interface RrsetWriteOutcome<T> {
  result: T;
  changedNames: string[];
  rrsetsAfter: RrsetWithRecords[];
  rrsetChanges: RrsetChanges;
}

/**
 * One write: `names`, the owner names it may change; `work` gets the RRsets there as the writes
 * before it in the batch left them, and throws ApiErrors only before it writes.
 */
interface Write {
  names: readonly string[];
  work: (tx: Db, zone: ZoneRow, here: RrsetWithRecords[]) => Promise<RrsetWriteOutcome<unknown>>;
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
}

/** Writes per batch: bounds the transaction (and the journal entry) a burst of writes makes. */
const maxBatch = 64;

const queues = new WeakMap<Store, Map<number, Write[]>>();

export function commitRrsetWrite<T>(
  ctx: DnsContext,
  zoneId: number,
  names: readonly string[],
  work: (tx: Db, zone: ZoneRow, here: RrsetWithRecords[]) => Promise<RrsetWriteOutcome<T>>,
): Promise<T> {
  const byZone = queues.get(ctx.store) ?? new Map<number, Write[]>();
  queues.set(ctx.store, byZone);
  return new Promise<T>((resolve, reject) => {
    const write: Write = { names, work, resolve: resolve as (result: unknown) => void, reject };
    const waiting = byZone.get(zoneId);
    if (waiting !== undefined) {
      waiting.push(write);
      return;
    }
    // No batch of this zone under way: this write starts one; those arriving meanwhile wait for it.
    const queue = [write];
    byZone.set(zoneId, queue);
    void (async () => {
      while (queue.length > 0) await commitBatch(ctx, zoneId, queue.splice(0, maxBatch));
      byZone.delete(zoneId);
    })();
  });
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Commits `batch` in one transaction and settles every write in it; never rejects. */
async function commitBatch(ctx: DnsContext, zoneId: number, batch: Write[]): Promise<void> {
  const names = [...new Set(batch.flatMap((w) => w.names))];
  try {
    const { result } = await commitZoneChange(
      ctx,
      zoneId,
      async (tx, zone, here) => {
        // The RRsets at each name as the writes so far left them: read once, before the first.
        const atName = Map.groupBy(here, (r) => r.name);
        const settled: Settled[] = [];
        const changed = new Set<string>();
        const changes: RrsetChanges = { created: [], updated: [], deleted: [] };
        for (const write of batch) {
          let outcome: RrsetWriteOutcome<unknown>;
          try {
            outcome = await write.work(tx, zone, write.names.flatMap((name) => atName.get(name) ?? []));
          } catch (e) {
            // Refused by the rules before it wrote: this write fails, the others go on.
            if (!(e instanceof ApiError)) throw e;
            settled.push({ ok: false, error: e });
            continue;
          }
          const after = Map.groupBy(outcome.rrsetsAfter, (r) => r.name);
          for (const name of outcome.changedNames) {
            atName.set(name, after.get(name) ?? []);
            changed.add(name);
          }
          changes.created.push(...outcome.rrsetChanges.created);
          changes.updated.push(...outcome.rrsetChanges.updated);
          changes.deleted.push(...outcome.rrsetChanges.deleted);
          settled.push({ ok: true, value: outcome.result });
        }
        const changedNames = [...changed];
        return {
          result: settled,
          unchanged: changedNames.length === 0,
          // One serial step per write, as if each had committed alone (decisions.md: every committed change).
          changes: settled.filter((s) => s.ok).length,
          changedNames,
          rrsetsAfter: changedNames.flatMap((name) => atName.get(name) ?? []),
          rrsetChanges: changes,
        };
      },
      { names },
    );
    result.forEach((outcome, i) => {
      const write = batch[i];
      if (outcome.ok) write?.resolve(outcome.value);
      else write?.reject(outcome.error);
    });
  } catch (e) {
    const [only] = batch;
    if (batch.length === 1 && only !== undefined) {
      only.reject(e);
      return;
    }
    // Nothing of the batch was committed: each write alone, so the error meets its own write.
    for (const write of batch) await commitBatch(ctx, zoneId, [write]);
  }
}
