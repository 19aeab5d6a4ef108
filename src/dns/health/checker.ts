// Runs the health checks of every RRset with `meta.failover`: each A or AAAA record's address is
// probed every `frequency` seconds, its state changes after `fall` failures or `rise` successes in a
// row (hysteresis.ts), and each change is stored, logged and reported, so the DNS threads drop down
// records wherever a `healthcheck` picker asks (pickers/chain.ts). One checker runs per DNS process;
// the targets are re-read from the store whenever a zone changes. On PostgreSQL the nodes share the
// work (coordination.ts): a node probes the records whose locks it holds, and follows the states the
// others store for the rest.
import type { FastifyBaseLogger } from 'fastify';
import type { HealthChange, ZoneChange } from '../../events/change-feed.ts';
import type { Db, Engine } from '../../store/database.ts';
import { failoverState, failoverStates, storeVerdict, type FailoverState } from '../../store/failover.ts';
import { healthCheckedRrsets } from '../../store/rrsets.ts';
import { nonPublic } from '../../net/public-address.ts';
import { recordType } from '../rrtypes/index.ts';
import { parseJson } from '../views.ts';
import type { Registry } from 'prom-client';
import { lockKey, type Coordination } from './coordination.ts';
import { checkOf, probedRecords, type Check } from './failover.ts';
import { afterProbe, type Hysteresis, type Thresholds } from './hysteresis.ts';
import { healthMetrics, type HealthMetrics, type HealthStates } from './metrics.ts';
import { probe } from './probes.ts';

/** A record whose health changed: its owner name, type code and RDATA as the DNS server holds them. */
export interface HealthReport {
  owner: string;
  type: number;
  /** One latin1 character per RDATA octet (served-rrset.ts). */
  rdata: string;
  up: boolean;
}

/**
 * Records one process checks at most: beyond, the rest count as up (and the log says so). At the
 * shortest frequency (10 s) that is up to a thousand probes a second from the DNS process.
 */
export const maxTargets = 10_000;

/** How often a node tries to take the checks no node holds, and re-reads the states of the others. */
const defaultSyncMs = 5000;

interface Target {
  record: Omit<HealthReport, 'up'>;
  rrsetId: number;
  address: string;
  check: Check;
  lock: number;
  /** The agreed state and the probe results against it; a record counts as up until it has a state. */
  state: Hysteresis;
  /** False when this node does not run the check (a private address, no ping): it follows the others. */
  probing: boolean;
  timer: NodeJS.Timeout | undefined;
  stopped: boolean;
}

const served = (target: Target) => target.state.up ?? true;
const stateKey = (rrsetId: number, address: string) => `${String(rrsetId)}|${address}`;

export interface HealthCheckerOptions {
  db: Db;
  engine: Engine;
  /** Who checks which record (coordination.ts). */
  coordination: Coordination;
  thresholds: Thresholds;
  /** Probe every record this often instead of its `frequency` (EDGEPLANE_TEST_HEALTHCHECK_INTERVAL; tests only). */
  intervalMs?: number | undefined;
  /** Between two claims of unheld checks (default 5 s). */
  syncMs?: number;
  /** Probe loopback and private addresses too (EDGEPLANE_HEALTHCHECK_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  report: (report: HealthReport) => Promise<void>;
  logger: FastifyBaseLogger;
  /** At most this many records are checked (default `maxTargets`). */
  limit?: number;
  /** Where to count records and probes (/metrics). */
  metrics?: Registry;
}

export class HealthChecker {
  readonly #options: HealthCheckerOptions;
  readonly #targets = new Map<string, Target>();
  #refreshing: Promise<void> | undefined;
  /** Refreshes asked for so far: one asked while a scan runs makes another scan follow. */
  #asked = 0;
  #stopped = false;
  /** Records over the cap at the last scan. */
  #skipped = 0;
  #syncTimer: NodeJS.Timeout | undefined;
  readonly #metrics: HealthMetrics | undefined;

  constructor(options: HealthCheckerOptions) {
    this.#options = options;
    this.#metrics = options.metrics === undefined ? undefined : healthMetrics(options.metrics, () => this.#states());
  }

  #states(): HealthStates {
    const states = { up: 0, down: 0, unchecked: this.#skipped };
    for (const target of this.#targets.values()) {
      if (!target.probing) states.unchecked++;
      else if (served(target)) states.up++;
      else states.down++;
    }
    return states;
  }

  /** Re-reads the targets; calls made while one runs are folded into one more run after it. */
  refresh(): Promise<void> {
    this.#asked++;
    if (this.#refreshing !== undefined) return this.#refreshing;
    this.#refreshing = (async () => {
      let scanned = 0;
      while (scanned !== this.#asked && !this.#stopped) {
        scanned = this.#asked;
        await this.#scan();
      }
    })().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  /**
   * Whether a zone change may change what is checked, so refresh() should follow it. A change of
   * names that came with what it wrote does not when no RRset at those names is health-checked,
   * after it (what it wrote) or before it (the targets), and no scan under way may have read the
   * store before it; anything else may (another node's change, a zone-wide one).
   */
  concerns(change: ZoneChange): boolean {
    const written = change.written;
    if (written === undefined || change.names === undefined || this.#refreshing !== undefined || this.#skipped > 0) return true;
    if (written.rrsets.some((r) => r.healthcheck === 1)) return true;
    const names = new Set(change.names);
    for (const target of this.#targets.values()) if (names.has(target.record.owner)) return true;
    return false;
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#syncTimer);
    for (const target of this.#targets.values()) this.#end(target);
    this.#targets.clear();
  }

  /** Another node stored a change (PostgreSQL NOTIFY): records this node does not probe follow it. */
  heard(change: HealthChange): void {
    for (const target of this.#targets.values()) {
      if (target.rrsetId !== change.rrset_id || target.address !== change.address) continue;
      if (!this.#probes(target)) this.#set(target, { up: change.up, streak: 0 });
    }
  }

  /** Whether this node runs the target's check now: it can, and it holds the check's lock. */
  #probes(target: Target): boolean {
    return target.probing && this.#options.coordination.holds(target.lock);
  }

  async #scan(): Promise<void> {
    const wanted = new Map<string, Omit<Target, 'state' | 'timer' | 'stopped'>>();
    let skipped = 0;
    for (const rrset of await healthCheckedRrsets(this.#options.db)) {
      const type = recordType(rrset.type);
      if (type === undefined) continue;
      const meta = parseJson<Record<string, unknown>>(rrset.meta);
      let check: Check | undefined;
      try {
        check = checkOf(meta);
      } catch (e) {
        // Stored before the API checked regexps for linear-time matching: logged, not run.
        this.#options.logger.warn({ rrset: `${rrset.name} ${rrset.type}`, err: e }, 'health check not run: its regexp cannot run in linear time');
      }
      if (check === undefined) continue;
      if (this.#options.intervalMs !== undefined) check = { ...check, frequencyMs: this.#options.intervalMs };
      const failover = JSON.stringify(meta['failover']);
      for (const { address, content } of probedRecords(rrset.records)) {
        if (wanted.size >= (this.#options.limit ?? maxTargets)) {
          skipped++;
          continue;
        }
        wanted.set(`${rrset.name}|${rrset.type}|${address}|${failover}`, {
          record: { owner: rrset.name, type: type.code, rdata: type.toWire(content).toString('latin1') },
          rrsetId: rrset.id,
          address,
          check,
          lock: lockKey(rrset.id, address),
          probing: this.#refusal(address) === undefined,
        });
      }
    }
    this.#skipped = skipped;
    if (skipped > 0) this.#options.logger.warn({ skipped }, `health checks: more than ${String(this.#options.limit ?? maxTargets)} records to check; ${String(skipped)} are not checked and count as up`);
    const removed = [...this.#targets].filter(([key]) => !wanted.has(key));
    const added = [...wanted]
      .filter(([key]) => !this.#targets.has(key))
      .map(([key, want]): [string, Target] => [key, { ...want, state: { up: undefined, streak: 0 }, timer: undefined, stopped: false }]);
    // New targets start from the stored state: the check may be new to this process, not to the
    // store. Read before anything changes, so that a failed read leaves the scan to the next one.
    const stored = await failoverStates(this.#options.db, [...new Set(added.map(([, t]) => t.rrsetId))]);
    if (this.#stopped) return;
    for (const [key, target] of removed) {
      this.#end(target);
      this.#targets.delete(key);
    }
    for (const [key, target] of added) this.#targets.set(key, target);
    this.#adopt(added.map(([, t]) => t), stored);
    const records = new Set([...this.#targets.values()].map((t) => `${t.record.owner}|${String(t.record.type)}|${t.record.rdata}`));
    for (const [, target] of removed) {
      // Nothing checks it any more: whatever serves that record again serves it as up.
      if (!served(target) && !records.has(`${target.record.owner}|${String(target.record.type)}|${target.record.rdata}`)) this.#report(target, true);
    }
    const kept = new Set([...this.#targets.values()].map((t) => t.lock));
    try {
      await this.#options.coordination.release(removed.map(([, t]) => t.lock).filter((lock) => !kept.has(lock)));
      await this.#claim();
    } catch (e) {
      this.#options.logger.warn({ err: e }, 'health checks: claiming checks failed; the next claim tries again');
    }
    for (const [, target] of added) this.#start(target);
    if (this.#options.coordination.shared && this.#syncTimer === undefined) this.#scheduleSync();
  }

  /** Sets the stored states on these targets (those with none stored keep theirs). */
  #adopt(targets: readonly Target[], rows: readonly FailoverState[]): void {
    const stored = new Map(rows.map((r) => [stateKey(r.rrset_id, r.address), r.up === 1]));
    for (const target of targets) {
      const up = stored.get(stateKey(target.rrsetId, target.address));
      if (up !== undefined) this.#set(target, { up, streak: 0 });
    }
  }

  /** Takes the locks of the checks this node can run and nobody holds. */
  async #claim(): Promise<void> {
    const unheld = [...this.#targets.values()].filter((t) => t.probing && !this.#options.coordination.holds(t.lock));
    const taken = new Set(await this.#options.coordination.claim(unheld.map((t) => t.lock)));
    if (taken.size > 0) this.#options.logger.debug({ checks: taken.size }, 'health checks taken over');
  }

  #scheduleSync(): void {
    this.#syncTimer = setTimeout(() => {
      void this.#sync().finally(() => {
        if (!this.#stopped) this.#scheduleSync();
      });
    }, this.#options.syncMs ?? defaultSyncMs);
    this.#syncTimer.unref();
  }

  /**
   * PostgreSQL: takes the checks another node let go (it stopped, or lost its connection), and
   * re-reads the states of the records this node does not probe, in case a notification was lost.
   */
  async #sync(): Promise<void> {
    try {
      // Read before the claim: the checks taken now continue from the state their last holder stored.
      const following = [...this.#targets.values()].filter((t) => !this.#probes(t));
      await this.#claim();
      this.#adopt(following, await failoverStates(this.#options.db, [...new Set(following.map((t) => t.rrsetId))]));
    } catch (e) {
      this.#options.logger.warn({ err: e }, 'health checks: claiming checks or reading their states failed; trying again');
    }
  }

  #refusal(address: string): string | undefined {
    return this.#options.allowPrivate ? undefined : nonPublic(address);
  }

  #start(target: Target): void {
    const { logger } = this.#options;
    const refusal = this.#refusal(target.address);
    if (refusal !== undefined) {
      logger.warn({ owner: target.record.owner, address: target.address }, `health check not run: ${target.address} is a ${refusal} address (EDGEPLANE_HEALTHCHECK_ALLOW_PRIVATE)`);
      return;
    }
    // Read through a call: `stopped` changes while the probes are awaited.
    const ended = () => target.stopped;
    const run = async () => {
      // A target ended while its verdict was being stored may still set one last timer: it ends here.
      if (ended()) return;
      if (this.#probes(target)) {
        // A probe never rejects by design; should one throw all the same, it counts as a failure.
        const up = await probe(target.address, target.check).catch(() => false);
        if (ended()) return;
        if (up === undefined) {
          target.probing = false;
          logger.warn({ owner: target.record.owner, address: target.address }, 'ICMP health check not run: this machine has no ping');
          // Another node may have ping: it may take the check.
          await this.#options.coordination.release([target.lock]).catch(() => undefined);
          return;
        }
        this.#metrics?.probed(target.check.protocol, up);
        await this.#verdict(target, up);
      }
      target.timer = setTimeout(() => void run(), target.check.frequencyMs);
      target.timer.unref();
    };
    void run();
  }

  /** Counts one probe result; a change of state is stored first, then served. */
  async #verdict(target: Target, result: boolean): Promise<void> {
    const next = afterProbe(target.state, result, this.#options.thresholds);
    if (next.up === target.state.up) {
      target.state = next;
      return;
    }
    const { db, engine, logger } = this.#options;
    try {
      const stored = await storeVerdict(db, engine, { rrsetId: target.rrsetId, address: target.address, from: target.state.up, to: next.up ?? true, at: Math.floor(Date.now() / 1000) });
      if (target.stopped) return;
      if (stored) this.#set(target, next);
      else {
        // Another node stored a state first (it held the check a moment ago): that one is agreed. No
        // state at all (the address left the RRset and came back): the next result decides.
        const row = await failoverState(db, target.rrsetId, target.address);
        this.#set(target, { up: row === undefined ? undefined : row.up === 1, streak: 0 });
      }
    } catch (e) {
      // The streak stands: the next probe that agrees tries again.
      logger.warn({ err: e, owner: target.record.owner, address: target.address }, 'a health check verdict could not be stored');
    }
  }

  /** Takes a new state; a change of what the record counts as is logged and handed to the DNS threads. */
  #set(target: Target, state: Hysteresis): void {
    const before = served(target);
    target.state = state;
    const up = served(target);
    if (up === before) return;
    this.#options.logger.info({ owner: target.record.owner, address: target.address, protocol: target.check.protocol }, `health check: ${target.address} is ${up ? 'up' : 'down'}`);
    this.#report(target, up);
  }

  #end(target: Target): void {
    target.stopped = true;
    clearTimeout(target.timer);
  }

  #report(target: Target, up: boolean): void {
    this.#options.report({ ...target.record, up }).catch((e: unknown) => this.#options.logger.error({ err: e }, 'a health change was not applied'));
  }
}
