// RRset writes of one zone that arrive while an earlier one commits are committed together, in one
// transaction (group commit): one zone lock, version bump, journal entry, NOTIFY and hand-over to
// the DNS threads for all of them, instead of one each, and their RRsets written by one statement
// (store/rrsets.ts writeRrsets) as long as no two touch one owner name. The serial still steps once
// per write. Each write still answers only once every DNS thread serves it, and each gets its own
// outcome: a write refused by the rules (an ApiError, thrown by its plan) fails alone. Any other
// error rolls the whole batch back, and its writes are then committed one by one, so that error
// reaches only the write that caused it; but a commit whose answer PostgreSQL's connection lost may
// have landed, and every write of its batch gets that answer (503) instead of a second commit. A
// batch waits for the writes already on their way (a few turns of the event loop, see gather())
// before it starts; the queue is per zone and per store.
//
// A write names its zone by name and its caller's account, and the zone is read once, locked, in
// the batch's transaction (no lookup before): a write whose caller's account does not hold the
// zone fails alone with the 404 of a missing zone.
//
// On PostgreSQL, where a batch's time goes to round trips, a batch is first tried as one guarded
// statement after an unlocked read (commitGuarded, store/guarded-change.ts): two round trips instead
// of five; one, with no read, while a zone's batches keep finding their names new or rewrite names
// its recent batches wrote (what they left is kept: commitGuarded). It falls back to
// the locked transaction whenever it cannot be, above all when another writer (another node,
// another use case) changed the zone between the read and the statement.
import { ApiError } from '../errors.ts';
import type { Store } from '../store/database.ts';
import { CommitOutcomeUnknown } from '../store/errors.ts';
import { writeGuardedChange, type GuardedChangeResult } from '../store/guarded-change.ts';
import { plannedRrset, writeRrsets, type RrsetWithRecords, type RrsetWrite } from '../store/rrsets.ts';
import { readZone } from '../store/zone-change.ts';
import type { ZoneRow } from '../store/zones.ts';
import { zoneNotFound } from './access.ts';
import { commitZoneChange, publishChange, told, webhookCall, zoneChangeOf, type ChangeOutcome, type RrsetChanges, type ZoneChangeOf } from './commit.ts';
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
  const byZone = byZoneOf(queues, ctx.store);
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

/** Stores writes (no two at one name) and answers each's RRset as stored: store/rrsets.ts writeRrsets in a transaction. */
type WriteRrsets = (writes: RrsetWrite[], at: string) => Promise<(RrsetWithRecords | undefined)[]>;

/** A planned write waiting to be stored. */
interface Pending {
  index: number;
  names: readonly string[];
  plan: RrsetWritePlan<unknown>;
}

/** What the writes settled so far did: the RRsets at each name after them, the names changed, each write's outcome. */
interface Done {
  atName: Map<string, RrsetWithRecords[]>;
  changed: Set<string>;
  changes: RrsetChanges;
  settled: Settled[];
}

/**
 * One batch's work: each write planned against the RRsets at its names as the writes before it
 * left them, the planned writes stored together (`store`) until one comes at a name a pending write
 * touches, which waits for them. Without `store` (a guarded batch) nothing is stored here: the
 * caller stores the pending writes and asks outcomeWith() what that did.
 */
class BatchWork {
  /** When the batch's RRsets are written. */
  readonly at = new Date().toISOString();
  readonly #zone: ZoneRow;
  readonly #store: WriteRrsets | undefined;
  readonly #done: Done;
  /** Planned writes not stored yet, at distinct names. */
  #pending: Pending[] = [];

  /** `here`: the RRsets at the batch's names before it. */
  constructor(zone: ZoneRow, here: RrsetWithRecords[], store?: WriteRrsets) {
    this.#zone = zone;
    this.#store = store;
    this.#done = { atName: Map.groupBy(here, (r) => r.name), changed: new Set(), changes: { created: [], updated: [], deleted: [] }, settled: [] };
  }

  /**
   * Plans the batch's `index`th write; a write refused by the rules (or for another account's zone)
   * fails alone. False when the write comes at a name a pending write touches and there is no
   * `store` to store those first: nothing was planned.
   */
  async add(index: number, write: Write): Promise<boolean> {
    if (this.#zone.account_id !== write.accountId) {
      this.#done.settled[index] = { ok: false, error: zoneNotFound() };
      return true;
    }
    if (this.#pending.some((p) => p.names.some((name) => write.names.includes(name)))) {
      if (this.#store === undefined) return false;
      const pending = this.#take();
      settle(this.#done, pending, await this.#store(pending.map((p) => p.plan.write), this.at));
    }
    try {
      const plan = write.plan(this.#zone, write.names.flatMap((name) => this.#done.atName.get(name) ?? []));
      this.#pending.push({ index, names: write.names, plan });
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      this.#done.settled[index] = { ok: false, error: e };
    }
    return true;
  }

  /** The writes planned and not stored yet. */
  get pendingWrites(): RrsetWrite[] {
    return this.#pending.map((p) => p.plan.write);
  }

  /** Stores what is pending with `store`; then what the batch changed, as commitZoneChange takes it. */
  async finish(): Promise<ChangeOutcome<Settled[]>> {
    if (this.#pending.length > 0 && this.#store !== undefined) {
      const pending = this.#take();
      settle(this.#done, pending, await this.#store(pending.map((p) => p.plan.write), this.at));
    }
    return outcomeOf(this.#done);
  }

  /** What the batch changed had its pending writes been stored as `stored`; the work itself stays as it is. */
  outcomeWith(stored: readonly (RrsetWithRecords | undefined)[]): ChangeOutcome<Settled[]> {
    const { atName, changed, changes, settled } = this.#done;
    const done = { atName: new Map(atName), changed: new Set(changed), changes: { created: [...changes.created], updated: [...changes.updated], deleted: [...changes.deleted] }, settled: [...settled] };
    settle(done, this.#pending, stored);
    return outcomeOf(done);
  }

  #take(): Pending[] {
    const pending = this.#pending;
    this.#pending = [];
    return pending;
  }
}

/** Records in `done` what `pending` did, stored as `stored` (one each, in order). */
function settle(done: Done, pending: readonly Pending[], stored: readonly (RrsetWithRecords | undefined)[]): void {
  pending.forEach(({ index, plan }, i) => {
    const outcome = plan.outcome(stored[i]);
    const after = Map.groupBy(outcome.rrsetsAfter, (r) => r.name);
    for (const name of outcome.changedNames) {
      done.atName.set(name, after.get(name) ?? []);
      done.changed.add(name);
    }
    done.changes.created.push(...outcome.rrsetChanges.created);
    done.changes.updated.push(...outcome.rrsetChanges.updated);
    done.changes.deleted.push(...outcome.rrsetChanges.deleted);
    done.settled[index] = { ok: true, value: outcome.result };
  });
}

function outcomeOf(done: Done): ChangeOutcome<Settled[]> {
  const changedNames = [...done.changed];
  return {
    result: done.settled,
    unchanged: changedNames.length === 0,
    // One serial step per write, as if each had committed alone (decisions.md: every committed change).
    changes: done.settled.filter((s) => s.ok).length,
    changedNames,
    rrsetsAfter: changedNames.flatMap((name) => done.atName.get(name) ?? []),
    rrsetChanges: done.changes,
  };
}

/** Settles each write of `batch` with its outcome. */
function answer(batch: readonly Write[], settled: readonly Settled[]): void {
  settled.forEach((outcome, i) => {
    const write = batch[i];
    if (outcome.ok) write?.resolve(outcome.value);
    else write?.reject(outcome.error);
  });
}

/** Commits `batch` and settles every write in it; never rejects. On PostgreSQL a guarded change is tried first. */
async function commitBatch(ctx: DnsContext, zoneName: string, batch: Write[], committed?: () => void): Promise<void> {
  const guarded = ctx.store.engine === 'postgres' ? await commitGuarded(ctx, zoneName, batch, committed) : false;
  if (guarded !== false) {
    ctx.countBatch(guarded);
    return;
  }
  await commitLocked(ctx, zoneName, batch, committed);
  ctx.countBatch('locked');
}

/** Commits `batch` in one transaction that locks the zone first. */
async function commitLocked(ctx: DnsContext, zoneName: string, batch: Write[], committed?: () => void): Promise<void> {
  const names = namesOf(batch);
  try {
    const { result } = await commitZoneChange(
      ctx,
      { name: zoneName },
      async (tx, zone, here) => {
        const work = new BatchWork(zone, here, (writes, at) => writeRrsets(tx, ctx.store.engine, zone.id, writes, at));
        for (const [index, write] of batch.entries()) await work.add(index, write);
        return work.finish();
      },
      { names, committed },
    );
    answer(batch, result);
  } catch (e) {
    // A commit that may have landed is not tried again: each write gets that answer.
    if (batch.length === 1 || e instanceof CommitOutcomeUnknown) {
      for (const write of batch) write.reject(e);
      return;
    }
    // Nothing of the batch was committed: each write alone, so the error meets its own write.
    for (const write of batch) await commitLocked(ctx, zoneName, [write]);
  }
}

/**
 * PostgreSQL: commits `batch` as one guarded change (store/guarded-change.ts), planned against an
 * unlocked read or, unread, against what this process's last batch of the zone left (headsByStore):
 * the zone's row, and the RRsets at the names its recent batches wrote. A batch whose names are all
 * known that way is planned on them; one with other names too, only when the zone's last batch found
 * its own new, on no RRsets at those (a guess). One round trip instead of two, for a stream of new
 * names or of rewrites of the same names. A guess the statement finds wrong, a zone another writer
 * changed meanwhile (both write nothing), or a batch an unread plan would leave unchanged or refuse
 * whole is planned again on a read. The way it committed; false, with nothing committed or settled,
 * when it cannot be: the zone is missing, two writes come at one name, the zone has a webhook (its
 * call is queued in the transaction), another writer changed the zone between the read and the
 * statement, or the server refused the statement; the locked way then commits it and gives each
 * write its own error. A statement whose answer the connection lost settles every write with
 * CommitOutcomeUnknown (it may have committed), and counts as the way it went.
 */
async function commitGuarded(ctx: DnsContext, zoneName: string, batch: Write[], committed?: () => void): Promise<'guarded' | 'unread' | false> {
  const names = namesOf(batch);
  const heads = byZoneOf(headsByStore, ctx.store);
  const head = heads.get(zoneName);
  // Kept again below only once this batch commits.
  heads.delete(zoneName);
  const unknown = head === undefined ? names : names.filter((name) => !head.known.has(name));
  const unread = head !== undefined && (unknown.length === 0 || head.guessNew);
  let done: Committed | 'settled' | 'read' | false = 'read';
  // The way of the last try: unread on the kept head, guarded on a read.
  let way: 'guarded' | 'unread' = unread ? 'unread' : 'guarded';
  try {
    if (unread) done = await tryGuarded(ctx, batch, names, { zone: head.zone, here: names.flatMap((name) => head.known.get(name) ?? []) }, unknown, true);
    if (done === 'read') {
      way = 'guarded';
      const found = await readZone(ctx.store.db, zoneName, names);
      done = found === undefined ? false : await tryGuarded(ctx, batch, names, found, [], false);
    }
  } catch (e) {
    if (!(e instanceof CommitOutcomeUnknown)) return false;
    // The statement may have committed: the locked way would commit the writes again.
    for (const write of batch) write.reject(e);
    return way;
  }
  // A batch planned on what it read is not planned again: it goes the locked way.
  if (done === false || done === 'read') return false;
  committed?.();
  if (done === 'settled') return way;
  // Committed: from here on an error settles the writes; it never commits them again.
  try {
    const outcome = done.work.outcomeWith(done.result.stored);
    keepHead(heads, zoneName, {
      zone: { ...done.change.after, version: done.result.version },
      // Planned at the head's version (unread, or on a read that found the zone as the head left
      // it), and committed only at that version: what the head knew holds still.
      known: head !== undefined && done.found.zone.version === head.zone.version ? head.known : new Map<string, RrsetWithRecords[]>(),
      // Guessing goes on unread; on a read, it starts again when the batch found its names new.
      guessNew: way === 'unread' ? head?.guessNew === true : done.found.here.length === 0,
      names,
      before: done.found.here,
      changed: outcome.changedNames ?? [],
      after: outcome.rrsetsAfter ?? [],
    });
    await publishChange(ctx, told(done.change, done.result.version, outcome.rrsetsAfter), false);
    answer(batch, outcome.result);
  } catch (e) {
    for (const write of batch) write.reject(e);
  }
  return way;
}

/** What this process's last batch of a zone left (headsByStore). */
interface ZoneHead {
  zone: ZoneRow;
  /** The RRsets at the names the zone's recent batches wrote, as the zone's row version has them; oldest first. */
  known: Map<string, RrsetWithRecords[]>;
  /** The last batch found the names it had not known new: the next batch may guess its unknown names new too. */
  guessNew: boolean;
}

/**
 * Names (and, in all, records) a zone's head knows at most: beyond either the oldest are forgotten.
 * With maxZoneHeads, at most 65,536 records are held however many zones a tenant writes.
 */
const maxKnownNames = 32;
const maxKnownRecords = 64;

/** Keeps the head a batch at `names` left: the RRsets there `before` it, those at the names it `changed` `after` it. */
function keepHead(
  heads: Map<string, ZoneHead>,
  zoneName: string,
  head: ZoneHead & { names: readonly string[]; before: readonly RrsetWithRecords[]; changed: readonly string[]; after: readonly RrsetWithRecords[] },
): void {
  const { known } = head;
  const changed = new Set(head.changed);
  const at = (rrsets: readonly RrsetWithRecords[], name: string) => rrsets.filter((r) => r.name === name);
  for (const name of head.names) {
    known.delete(name);
    known.set(name, at(changed.has(name) ? head.after : head.before, name));
  }
  let records = 0;
  for (const rrsets of known.values()) for (const rrset of rrsets) records += rrset.records.length;
  for (const [name, rrsets] of known) {
    if (known.size <= maxKnownNames && records <= maxKnownRecords) break;
    known.delete(name);
    for (const rrset of rrsets) records -= rrset.records.length;
  }
  heads.set(zoneName, { zone: head.zone, known, guessNew: head.guessNew });
  if (heads.size > maxZoneHeads) heads.delete(heads.keys().next().value ?? zoneName);
}

type FoundRrsets = { zone: ZoneRow; here: RrsetWithRecords[] };

/** A guarded try that committed: what it was planned on, the work, the change told, what the statement wrote. */
interface Committed {
  found: FoundRrsets;
  work: BatchWork;
  change: ZoneChangeOf;
  result: GuardedChangeResult;
}

/**
 * Plans `batch` on `found` and sends it as one guarded statement; `unread`: `found` was not read
 * but kept (a head), and `absent` the names it has no RRsets at by a guess. Nothing unread is settled
 * before the statement checks it: 'settled': answered, with nothing to write, as read; 'read': plan
 * it again on a read (a guess was wrong, the zone moved on, or an unread plan would have settled
 * it); false: it cannot go guarded.
 */
async function tryGuarded(ctx: DnsContext, batch: Write[], names: readonly string[], found: FoundRrsets, absent: readonly string[], unread: boolean): Promise<Committed | 'settled' | 'read' | false> {
  const work = new BatchWork(found.zone, found.here);
  for (const [index, write] of batch.entries()) if (!(await work.add(index, write))) return false;
  const writes = work.pendingWrites;
  const planned = work.outcomeWith(writes.map((w) => plannedRrset(found.zone.id, w, work.at)));
  if (planned.unchanged === true) {
    if (unread) return 'read';
    answer(batch, planned.result);
    return 'settled';
  }
  // Its call is queued in the locked way's transaction: asked before the journal entry is built.
  if (webhookCall(found.zone, planned) !== undefined) return false;
  // The journal entry is written with the change: it is taken from the RRsets as planned (the
  // ids the store gives them are not part of it).
  const change = await zoneChangeOf(ctx, ctx.store.db, { ...found, names }, planned);
  const result = await writeGuardedChange(ctx.store.db, { version: found.zone.version, absent }, writes, work.at, change.write);
  if (result === undefined) return unread ? 'read' : false;
  return { found, work, change, result };
}

/** Zones whose head this process keeps for planning unread (headsByStore): beyond it the oldest are forgotten. */
const maxZoneHeads = 1024;

/** By store, zone name: what this process's last guarded batch of the zone left (see commitGuarded). */
const headsByStore = new WeakMap<Store, Map<string, ZoneHead>>();

/** `store`'s map by zone name in `maps`, made on first use. */
function byZoneOf<T>(maps: WeakMap<Store, Map<string, T>>, store: Store): Map<string, T> {
  let byZone = maps.get(store);
  if (byZone === undefined) {
    byZone = new Map<string, T>();
    maps.set(store, byZone);
  }
  return byZone;
}

/** Every owner name the writes of `batch` may change. */
const namesOf = (batch: readonly Write[]) => [...new Set(batch.flatMap((w) => w.names))];
