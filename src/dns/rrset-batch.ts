// RRset writes of one zone that arrive while an earlier one commits are committed together, in one
// transaction (group commit): one zone lock, version bump, journal entry, NOTIFY and hand-over to
// the DNS threads for all of them, instead of one each, and their RRsets written by one statement
// (store/rrsets.ts writeRrsets) as long as no two touch one owner name. The serial still steps once
// per write. Each write still answers only once every DNS thread serves it, and each gets its own
// outcome: a write refused by the rules (an ApiError, thrown by its plan) fails alone. Any other
// error rolls the whole batch back, and its writes are then committed one by one, so that error
// reaches only the write that caused it. A batch waits for the writes already on their way (a few turns of the event loop, see
// gather()) before it starts; the queue is per zone and per store.
//
// A write names its zone by name and its caller's account, and the zone is read once, locked, in
// the batch's transaction (no lookup before): a write whose caller's account does not hold the
// zone fails alone with the 404 of a missing zone.
import { ApiError } from '../errors.ts';
import type { Db, Engine, Store } from '../store/database.ts';
import { writeRrsets, type RrsetWithRecords, type RrsetWrite } from '../store/rrsets.ts';
import type { ZoneRow } from '../store/zones.ts';
import { zoneNotFound } from './access.ts';
import { commitZoneChange, type ChangeOutcome, type RrsetChanges } from './commit.ts';
import type { DnsContext } from './context.ts';

/** What one RRset write did: every RRset at `changedNames` after it, and what its webhook says. */
export interface RrsetWriteOutcome<T> {
  result: T;
  changedNames: string[];
  rrsetsAfter: RrsetWithRecords[];
  rrsetChanges: RrsetChanges;
}

/** What a write stores, and its outcome once stored (`stored`: the RRset as written; undefined for a delete). */
export interface RrsetWritePlan<T> {
  write: RrsetWrite;
  outcome: (stored: RrsetWithRecords | undefined) => RrsetWriteOutcome<T>;
}

/**
 * Checks a write against the RRsets at its names as the writes before it in the batch left them,
 * throwing ApiErrors when the rules refuse it, and says what it stores.
 */
export type RrsetWritePlanner<T> = (zone: ZoneRow, here: RrsetWithRecords[]) => RrsetWritePlan<T>;

/** One write: `names`, the owner names it may change. */
interface Write {
  /** The caller's account: the zone must be its own. */
  accountId: number;
  names: readonly string[];
  plan: RrsetWritePlanner<unknown>;
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
}

/** Writes per batch: bounds the transaction (and the journal entry) a burst of writes makes. */
const maxBatch = 64;

/** Waiting writes by zone name. */
const queues = new WeakMap<Store, Map<string, Write[]>>();

/** `zone`: the zone's canonical name and the caller's account. */
export function commitRrsetWrite<T>(
  ctx: DnsContext,
  zone: { name: string; accountId: number },
  names: readonly string[],
  plan: RrsetWritePlanner<T>,
): Promise<T> {
  const byZone = queues.get(ctx.store) ?? new Map<string, Write[]>();
  queues.set(ctx.store, byZone);
  const zoneName = zone.name;
  return new Promise<T>((resolve, reject) => {
    const write: Write = { accountId: zone.accountId, names, plan, resolve: resolve as (result: unknown) => void, reject };
    const waiting = byZone.get(zoneName);
    if (waiting !== undefined) {
      waiting.push(write);
      return;
    }
    // No batch of this zone under way: this write starts one; those arriving meanwhile wait for it.
    const queue = [write];
    byZone.set(zoneName, queue);
    void (async () => {
      while (queue.length > 0) {
        await gather(queue);
        await committing(ctx, zoneName, queue.splice(0, maxBatch));
      }
      byZone.delete(zoneName);
    })();
  });
}

/** Event-loop turns a batch waits at most for more writes to join it. */
const maxGatherTurns = 4;

/**
 * Lets the writes of requests already on their way join `queue` before it commits: waits a turn of
 * the event loop (the requests read in it reach their write before it ends) as long as the last turn
 * brought more, up to maxGatherTurns or a full batch. Most of a batch's cost is the same whatever
 * its size (the commit, the hand-over to the DNS threads), so larger batches cost less per write: at
 * 8 concurrent writers this takes the server's CPU per write down by a fifth (bench/api) for well
 * under a millisecond of waiting. A lone write waits two turns.
 */
async function gather(queue: readonly Write[]): Promise<void> {
  for (let turn = 0, before = -1; turn < maxGatherTurns && queue.length !== before && queue.length < maxBatch; turn++) {
    before = queue.length;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * Commits `batch`; resolves once it is committed (or, when it fails, settled), while the DNS threads
 * may still be taking it: the next batch's transaction overlaps that hand-over. The threads take
 * the changes in the order they were committed (ServedZones applies a zone's changes in turn).
 */
function committing(ctx: DnsContext, zoneName: string, batch: Write[]): Promise<void> {
  return new Promise<void>((resolve) => {
    void commitBatch(ctx, zoneName, batch, resolve).then(resolve);
  });
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * One batch's work inside its transaction: each write planned against the RRsets at its names as
 * the writes before it left them, the planned writes stored together (writeRrsets) until one comes
 * at a name a pending write touches, which waits for them.
 */
class BatchWork {
  /** Each write's outcome, by its index in the batch. */
  readonly settled: Settled[] = [];
  readonly #tx: Db;
  readonly #engine: Engine;
  readonly #zone: ZoneRow;
  /** The RRsets at each name as the writes so far left them: read once, before the first. */
  readonly #atName: Map<string, RrsetWithRecords[]>;
  readonly #changed = new Set<string>();
  readonly #changes: RrsetChanges = { created: [], updated: [], deleted: [] };
  readonly #at = new Date().toISOString();
  /** Planned writes not stored yet, at distinct names. */
  #pending: { index: number; names: readonly string[]; plan: RrsetWritePlan<unknown> }[] = [];

  constructor(tx: Db, engine: Engine, zone: ZoneRow, here: RrsetWithRecords[]) {
    this.#tx = tx;
    this.#engine = engine;
    this.#zone = zone;
    this.#atName = Map.groupBy(here, (r) => r.name);
  }

  /** Plans the batch's `index`th write; a write refused by the rules (or for another account's zone) fails alone. */
  async add(index: number, write: Write): Promise<void> {
    if (this.#zone.account_id !== write.accountId) {
      this.settled[index] = { ok: false, error: zoneNotFound() };
      return;
    }
    if (this.#pending.some((p) => p.names.some((name) => write.names.includes(name)))) await this.#store();
    try {
      const plan = write.plan(this.#zone, write.names.flatMap((name) => this.#atName.get(name) ?? []));
      this.#pending.push({ index, names: write.names, plan });
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      this.settled[index] = { ok: false, error: e };
    }
  }

  /** Stores what is pending; then what the batch changed, as commitZoneChange takes it. */
  async finish(): Promise<ChangeOutcome<Settled[]>> {
    if (this.#pending.length > 0) await this.#store();
    const changedNames = [...this.#changed];
    return {
      result: this.settled,
      unchanged: changedNames.length === 0,
      // One serial step per write, as if each had committed alone (decisions.md: every committed change).
      changes: this.settled.filter((s) => s.ok).length,
      changedNames,
      rrsetsAfter: changedNames.flatMap((name) => this.#atName.get(name) ?? []),
      rrsetChanges: this.#changes,
    };
  }

  async #store(): Promise<void> {
    const pending = this.#pending;
    this.#pending = [];
    const stored = await writeRrsets(this.#tx, this.#engine, this.#zone.id, pending.map((p) => p.plan.write), this.#at);
    pending.forEach(({ index, plan }, i) => {
      const outcome = plan.outcome(stored[i]);
      const after = Map.groupBy(outcome.rrsetsAfter, (r) => r.name);
      for (const name of outcome.changedNames) {
        this.#atName.set(name, after.get(name) ?? []);
        this.#changed.add(name);
      }
      this.#changes.created.push(...outcome.rrsetChanges.created);
      this.#changes.updated.push(...outcome.rrsetChanges.updated);
      this.#changes.deleted.push(...outcome.rrsetChanges.deleted);
      this.settled[index] = { ok: true, value: outcome.result };
    });
  }
}

/** Commits `batch` in one transaction and settles every write in it; never rejects. */
async function commitBatch(ctx: DnsContext, zoneName: string, batch: Write[], committed?: () => void): Promise<void> {
  const names = [...new Set(batch.flatMap((w) => w.names))];
  try {
    const { result } = await commitZoneChange(
      ctx,
      { name: zoneName },
      async (tx, zone, here) => {
        const work = new BatchWork(tx, ctx.store.engine, zone, here);
        for (const [index, write] of batch.entries()) await work.add(index, write);
        return work.finish();
      },
      { names, committed },
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
    for (const write of batch) await commitBatch(ctx, zoneName, [write]);
  }
}
