// Keeps one DNS thread's zones at the store's versions, however a change reaches the thread or
// fails to (docs/dns-server.md, "Changes and convergence"):
// - a change that fails to apply is tried again, as a reload of the whole zone, after 0.1 s and
//   0.5 s; after that the zone is "behind": the thread serves its former version and reloads it at
//   the checks, less often each time (1 s, 2 s, ... up to a minute), until that works;
// - every 2 s the thread reads the store's zone version (one row). When it moved, the zones changed
//   since are read (one query) and those not served at their version reloaded, and, when the count
//   of enabled zones says one is gone, the deleted ones dropped. A change that never arrived (a lost
//   NOTIFY, SQLite shared with another process) or that kept failing is served within seconds.
//   A thread that is handed changes as they commit gives each one check's time to arrive first, so
//   it does not reload a zone the change on its way would update in part.
import type { FastifyBaseLogger } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ZoneChange } from '../../events/change-feed.ts';
import type { Db } from '../../store/database.ts';
import { enabledZoneCount, enabledZones, storeVersion, zonesChangedSince } from '../../store/zones.ts';
import type { ApplyFaults } from './apply-faults.ts';
import type { ServedZones } from './served-zones.ts';

/** Waits before the retries of a change that failed: each is a reload of the whole zone. */
const retryDelaysMs = [100, 500];
const checkIntervalMs = 2000;
const firstBackoffMs = 1000;
const maxBackoffMs = 60_000;

export interface ZoneSyncOptions {
  db: Db;
  zones: ServedZones;
  logger: FastifyBaseLogger;
  metrics: Registry;
  /** This DNS thread: 0 the main thread, 1 and up the workers (logs, faults). */
  thread: number;
  /** The catalog zone's name (catalog.ts): a hosted zone of that name is never served. */
  catalog: string | undefined;
  faults: ApplyFaults;
  /** The thread brought a zone to the store's version by itself, not from a change handed to it. */
  onCaughtUp: (change: ZoneChange, served: boolean) => void;
  /** Changes are handed to this thread as they commit (the API in this process, PostgreSQL NOTIFY). */
  handed: boolean;
  /** Between two checks of the store; 2 s unless a test wants it shorter. */
  checkIntervalMs?: number;
}

/** A zone served at a former version: the change it failed to reach, and when to try again. */
interface Behind {
  change: ZoneChange;
  dueAt: number;
  backoffMs: number;
}

type Outcome = 'applied' | 'current' | 'failed';

/** The same change, applied by reading the whole zone. */
const reloadOf = (change: ZoneChange): ZoneChange => ({ ...change, names: undefined, previous: undefined, written: undefined });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ZoneSync {
  readonly #options: ZoneSyncOptions;
  readonly #zones: ServedZones;
  readonly #behind = new Map<string, Behind>();
  /** Changes the last check found that a change handed over since should have brought, by zone. */
  readonly #found = new Map<string, ZoneChange>();
  /** The store's zone version up to which every change is served or behind. */
  #seen = 0;
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> = Promise.resolve();
  #checkFailing = false;
  #stopped = false;
  readonly #failures: Counter;
  readonly #resyncs: Counter;

  constructor(options: ZoneSyncOptions) {
    this.#options = options;
    this.#zones = options.zones;
    const registers = [options.metrics];
    this.#failures = new Counter({
      name: 'edgeplane_dns_zone_apply_failures_total',
      help: 'Attempts of a DNS thread to apply a zone change or reload a zone that failed',
      registers,
    });
    this.#resyncs = new Counter({
      name: 'edgeplane_dns_zone_resyncs_total',
      help: 'Zones a DNS thread reloaded because the periodic check found the store ahead (a change missed or failed before)',
      registers,
    });
    const behind = this.#behind;
    new Gauge({
      name: 'edgeplane_dns_zones_behind',
      help: 'Zones a DNS thread serves at a former version because applying a change failed; retried until it works',
      registers,
      collect() {
        this.set(behind.size);
      },
    });
  }

  /** Loads every zone, then checks the store every 2 s. */
  async start(): Promise<void> {
    this.#seen = await this.#zones.loadAll();
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#checking;
  }

  /**
   * Applies a committed change, retrying as a reload of the zone. Resolves to true once the thread
   * serves it, to false when it gave up for now (the zone is then behind, and the checks retry it).
   * Never rejects: the change is committed whatever happens here.
   */
  async apply(change: ZoneChange): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      const tried = attempt === 0 ? change : reloadOf(change);
      const outcome = await this.#attempt(tried);
      if (outcome !== 'failed') {
        this.#clearBehind(tried, outcome);
        return true;
      }
      const delay = retryDelaysMs[attempt];
      if (delay === undefined || this.#stopped) {
        this.#fallBehind(change);
        return false;
      }
      await sleep(delay);
    }
  }

  async #attempt(change: ZoneChange): Promise<Outcome> {
    try {
      this.#options.faults.attempt(change.zone);
      return (await this.#zones.apply(change)) ? 'applied' : 'current';
    } catch (e) {
      this.#zones.failed(change);
      this.#failures.inc();
      this.#options.logger.warn({ err: e, zone: change.zone, version: change.version, thread: this.#options.thread }, 'applying a zone change failed');
      return 'failed';
    }
  }

  #fallBehind(change: ZoneChange): void {
    const known = this.#behind.get(change.zone);
    // The latest change is the one to reach; the backoff goes on from where it was.
    const backoffMs = known === undefined ? firstBackoffMs : Math.min(known.backoffMs * 2, maxBackoffMs);
    const target = known !== undefined && known.change.version > change.version ? known.change : change;
    this.#behind.set(change.zone, { change: target, dueAt: Date.now() + backoffMs, backoffMs });
    this.#options.logger.error(
      { zone: change.zone, version: target.version, thread: this.#options.thread, retry_in_ms: backoffMs },
      'a DNS thread serves a former version of a zone: applying its change failed; reloading it later',
    );
  }

  /** After `change` worked: the zone is no longer behind if that brought it where it should be. */
  #clearBehind(change: ZoneChange, outcome: Outcome): void {
    const known = this.#behind.get(change.zone);
    if (known === undefined) return;
    // A reload read the zone as the store has it now, later than the change it was behind on.
    const reloaded = outcome === 'applied' && change.names === undefined;
    if (reloaded || this.#reached(known.change)) this.#behind.delete(change.zone);
  }

  /** Whether the thread serves what the change made of its zone (a deletion: nothing, or a newer zone). */
  #reached(change: ZoneChange): boolean {
    return this.#zones.serves(change.zone, change.version) || (change.deleted && this.#zones.get(change.zone) === undefined);
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#checking = this.#check()
        .then(() => {
          if (this.#checkFailing) this.#options.logger.info({ thread: this.#options.thread }, 'zone version check works again');
          this.#checkFailing = false;
        })
        .catch((e: unknown) => {
          // Once per outage, not every 2 s.
          if (!this.#checkFailing) this.#options.logger.warn({ err: e, thread: this.#options.thread }, 'zone version check failed; retrying every 2 s');
          this.#checkFailing = true;
        })
        .finally(() => this.#schedule());
    }, this.#options.checkIntervalMs ?? checkIntervalMs);
    // The checks never keep a process alive.
    this.#timer.unref();
  }

  /**
   * One check: the changes the last one found, if they have not arrived since; the store's version,
   * and what changed since the last check; the zones behind that are due.
   */
  async #check(): Promise<void> {
    const { db, catalog } = this.#options;
    for (const change of [...this.#found.values()]) {
      if (this.#stopped) return;
      this.#found.delete(change.zone);
      if (!this.#behind.has(change.zone) && !this.#reached(change)) await this.#catchUp(change);
    }
    const version = await storeVersion(db);
    if (version !== this.#seen) {
      for (const row of await zonesChangedSince(db, this.#seen)) {
        if (this.#stopped) return;
        // A disabled zone is gone from the thread as a deleted one is.
        const change: ZoneChange = { zoneId: row.id, zone: row.name, serial: row.serial, version: row.version, deleted: row.enabled !== 1 };
        // A zone behind is retried on its own schedule (below).
        if (row.name !== catalog && !this.#behind.has(row.name) && !this.#reached(change)) await this.#foundChange(change);
      }
      await this.#dropDeleted(version);
      this.#seen = version;
    }
    const now = Date.now();
    for (const known of [...this.#behind.values()]) {
      if (this.#stopped) return;
      if (known.dueAt <= now) await this.#catchUp(reloadOf(known.change));
    }
  }

  /** A change the thread does not serve: caught up on now, or at the next check if one may be on its way. */
  async #foundChange(change: ZoneChange): Promise<void> {
    if (this.#options.handed) this.#found.set(change.zone, change);
    else await this.#catchUp(change);
  }

  /**
   * Drops served zones the store no longer has enabled; `version`: the store's, read first. The
   * count of enabled zones tells whether any is gone (zones behind and not served yet count as
   * served); only then are their names read.
   */
  async #dropDeleted(version: number): Promise<void> {
    const { db, catalog } = this.#options;
    const unserved = [...this.#behind.keys()].filter((name) => this.#zones.get(name) === undefined).length;
    if ((await enabledZoneCount(db, catalog)) === this.#zones.size + unserved) return;
    const stored = new Set((await enabledZones(db, catalog)).map((zone) => zone.name));
    for (const name of this.#zones.names()) {
      const served = this.#zones.get(name);
      // A view read after `version` is of a zone newer than this listing may show: kept.
      if (stored.has(name) || this.#behind.has(name) || served === undefined || served.head.version >= version) continue;
      await this.#foundChange({ zoneId: served.head.id, zone: name, serial: 0, version, deleted: true });
    }
  }

  /** Applies a change the check found; one attempt, a failure leaves (or keeps) the zone behind. */
  async #catchUp(change: ZoneChange): Promise<void> {
    const outcome = await this.#attempt(change);
    if (outcome === 'failed') {
      this.#fallBehind(change);
      return;
    }
    this.#clearBehind(change, outcome);
    if (outcome === 'current') return;
    this.#resyncs.inc();
    const served = this.#zones.get(change.zone) !== undefined;
    this.#options.logger.info({ zone: change.zone, version: change.version, thread: this.#options.thread, served }, 'zone brought to the store\'s version by the periodic check');
    this.#options.onCaughtUp(change, served);
  }
}
