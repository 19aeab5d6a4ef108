// Runs the health checks of every RRset with `meta.failover`: each A or AAAA record's address is
// probed every `frequency` seconds, and each change between up and down is reported, so the DNS
// threads drop down records wherever a `healthcheck` picker asks (pickers/chain.ts). One checker
// runs per DNS process; the targets are re-read from the store whenever a zone changes.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../store/database.ts';
import { healthCheckedRrsets } from '../../store/rrsets.ts';
import { nonPublic } from '../../net/public-address.ts';
import { recordType } from '../rrtypes/index.ts';
import type { ContentValue } from '../rrtypes/record-type.ts';
import { parseJson } from '../views.ts';
import type { Registry } from 'prom-client';
import { checkOf, type Check } from './failover.ts';
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

interface Target {
  record: Omit<HealthReport, 'up'>;
  address: string;
  check: Check;
  /** What the last probe said; a record counts as up until a probe says otherwise. */
  up: boolean;
  /** False when the check is not run (a private address, no ping). */
  probing: boolean;
  timer: NodeJS.Timeout | undefined;
  stopped: boolean;
}

export interface HealthCheckerOptions {
  db: Db;
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
  readonly #metrics: HealthMetrics | undefined;

  constructor(options: HealthCheckerOptions) {
    this.#options = options;
    this.#metrics = options.metrics === undefined ? undefined : healthMetrics(options.metrics, () => this.#states());
  }

  #states(): HealthStates {
    const states = { up: 0, down: 0, unchecked: this.#skipped };
    for (const target of this.#targets.values()) {
      if (!target.probing) states.unchecked++;
      else if (target.up) states.up++;
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

  stop(): void {
    this.#stopped = true;
    for (const target of this.#targets.values()) this.#end(target);
    this.#targets.clear();
  }

  async #scan(): Promise<void> {
    const wanted = new Map<string, { record: Omit<HealthReport, 'up'>; address: string; check: Check }>();
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
      const failover = JSON.stringify(meta['failover']);
      for (const row of rrset.records) {
        if (row.enabled !== 1) continue;
        if (wanted.size >= (this.#options.limit ?? maxTargets)) {
          skipped++;
          continue;
        }
        const content = parseJson<ContentValue[]>(row.content);
        const address = String(content[0]);
        wanted.set(`${rrset.name}|${rrset.type}|${address}|${failover}`, {
          record: { owner: rrset.name, type: type.code, rdata: type.toWire(content).toString('latin1') },
          address,
          check,
        });
      }
    }
    this.#skipped = skipped;
    if (skipped > 0) this.#options.logger.warn({ skipped }, `health checks: more than ${String(this.#options.limit ?? maxTargets)} records to check; ${String(skipped)} are not checked and count as up`);
    if (this.#stopped) return;
    for (const [key, target] of this.#targets) {
      if (wanted.has(key)) continue;
      this.#end(target);
      this.#targets.delete(key);
      // Nothing checks it any more: whatever serves that record again serves it as up.
      if (!target.up) this.#report(target, true);
    }
    for (const [key, want] of wanted) {
      if (this.#targets.has(key)) continue;
      const target: Target = { ...want, up: true, probing: true, timer: undefined, stopped: false };
      this.#targets.set(key, target);
      this.#start(target);
    }
  }

  #start(target: Target): void {
    const { logger, allowPrivate } = this.#options;
    const refusal = allowPrivate ? undefined : nonPublic(target.address);
    if (refusal !== undefined) {
      target.probing = false;
      logger.warn({ owner: target.record.owner, address: target.address }, `health check not run: ${target.address} is a ${refusal} address (EDGEPLANE_HEALTHCHECK_ALLOW_PRIVATE)`);
      return;
    }
    const run = async () => {
      // A probe never rejects by design; should one throw all the same, the record counts as down.
      const up = await probe(target.address, target.check).catch(() => false);
      if (target.stopped) return;
      if (up === undefined) {
        target.probing = false;
        logger.warn({ owner: target.record.owner, address: target.address }, 'ICMP health check not run: this machine has no ping');
        return;
      }
      this.#metrics?.probed(target.check.protocol, up);
      if (up !== target.up) {
        target.up = up;
        logger.info({ owner: target.record.owner, address: target.address, protocol: target.check.protocol }, `health check: ${target.address} is ${up ? 'up' : 'down'}`);
        this.#report(target, up);
      }
      target.timer = setTimeout(() => void run(), target.check.frequencyMs);
      target.timer.unref();
    };
    void run();
  }

  #end(target: Target): void {
    target.stopped = true;
    clearTimeout(target.timer);
  }

  #report(target: Target, up: boolean): void {
    this.#options.report({ ...target.record, up }).catch((e: unknown) => this.#options.logger.error({ err: e }, 'a health change was not applied'));
  }
}
