// Managed certificates: resources with ssl_type "le" get a certificate from the configured ACME
// directory and keep it renewed. Run by the proxy role's main thread on every proxy node; a lease
// in the store lets one node at a time talk to the CA, and that node orders one certificate at a
// time (the CA's limits are per account, and a stranger must not make us spend them):
// - only for the names the resource holds (its name and aliases, released hosts excluded), at most
//   100, and only while it is enabled;
// - after a failed order the resource waits (doubling from 10 minutes to a day; the failure is
//   stored, so restarts do not reset it), unless its names change;
// - an order some names failed in still yields a certificate for the names that passed, when the
//   resource has none for them.
// A certificate is written into the resource's row (ssl_type stays "le") and published as a
// resource change, like an API write: every proxy thread of every node serves it next.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type acme from 'acme-client';
import type { Sealer } from '../../../crypto/sealed.ts';
import { notifyResourceChange, type ResourceChange } from '../../../events/change-feed.ts';
import {
  deleteAcmeAttempt,
  deleteAcmeChallenges,
  deleteExpiredAcmeChallenges,
  insertAcmeChallenges,
  listAcmeAttempts,
  managedResourceIds,
  releaseLease,
  saveAcmeAttempt,
  storeManagedCertificate,
  takeLease,
  type AcmeAttemptRow,
} from '../../../store/acme.ts';
import type { Db, Store } from '../../../store/database.ts';
import { within } from '../../../within.ts';
import { tlsKeyContext } from '../../resources.ts';
import type { ResourcePolicy } from '../policy.ts';
import { openAcmeAccount, type AcmeDirectory } from './acme-account.ts';
import { orderCertificate, type ChallengeBoard, type OrderOutcome } from './acme-order.ts';
import { backoffMs, certificateNeed, renewalTime, wantedNames } from './acme-renewal.ts';

export interface AcmeTiming {
  /** How often every managed resource is looked at (renewals, retries after a backoff). */
  checkEveryMs: number;
  /** After a resource change, how soon they are looked at (changes come in bursts). */
  wakeDelayMs: number;
  /** How long the issuing lease lasts unless renewed; a node that died mid-order frees it after this. */
  leaseMs: number;
  /**
   * Between posting challenges and telling the CA to look: this node's threads serve them at once,
   * other nodes once the store's NOTIFY reached them.
   */
  settleMs: number;
  /** How long a posted challenge is served at most. */
  challengeTtlMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Renew this many seconds before expiry; undefined: a share of the lifetime (acme-renewal.ts). */
  renewBeforeSeconds: number | undefined;
}

export const defaultAcmeTiming: AcmeTiming = {
  checkEveryMs: 10 * 60_000,
  wakeDelayMs: 1_000,
  leaseMs: 10 * 60_000,
  settleMs: 0,
  challengeTtlMs: 10 * 60_000,
  backoffBaseMs: 10 * 60_000,
  backoffMaxMs: 24 * 3_600_000,
  renewBeforeSeconds: undefined,
};

export interface AcmeManagerOptions {
  store: Store;
  sealer: Sealer;
  logger: Logger;
  directory: AcmeDirectory;
  /** These resources as proxy threads get them (policy-loader.ts): the names they hold, their certificate. */
  loadPolicies: (ids: number[]) => Promise<ResourcePolicy[]>;
  /** Tells this process's proxy threads a resource changed, resolving once they serve it (other nodes hear the store's NOTIFY). */
  publish: (change: ResourceChange) => Promise<void>;
  timing?: Partial<AcmeTiming>;
}

export interface AcmeManager {
  /** Looks at every managed resource now, then every `checkEveryMs`. */
  start(): void;
  /** A resource changed: look soon. */
  wake(): void;
  /** One look at every managed resource (the one under way, if any, and another after it). */
  check(): Promise<void>;
  stop(): Promise<void>;
}

const leaseName = 'acme-issuer';
const stopWaitMs = 5_000;
/** Token syntax (RFC 8555 §8.3: base64url): anything else is not put where a URL path is matched. */
const tokenPattern = /^[A-Za-z0-9_-]{16,256}$/;
const iso = (ms: number) => new Date(ms).toISOString();

export function createAcmeManager(options: AcmeManagerOptions): AcmeManager {
  const { store, sealer, logger, directory } = options;
  const timing = { ...defaultAcmeTiming, ...options.timing };
  const holder = `${hostname()}:${String(process.pid)}:${randomBytes(6).toString('hex')}`;
  let client: acme.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let timerDue = Infinity;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const holdLease = () => {
    const now = Date.now();
    return takeLease(store.db, leaseName, holder, iso(now), iso(now + timing.leaseMs));
  };

  /** A write that changes what a resource's proxy threads serve: committed with its NOTIFY, then published here. */
  const changeResource = async <T>(resourceId: number, work: (tx: Db) => Promise<T>): Promise<T> => {
    const change: ResourceChange = { resourceId, deleted: false };
    const result = await store.db.transaction().execute(async (tx) => {
      const done = await work(tx);
      await notifyResourceChange(tx, store.engine, change);
      return done;
    });
    await options.publish(change);
    return result;
  };

  const board: ChallengeBoard = {
    post: async (resourceId, challenges) => {
      const bad = challenges.find((c) => !tokenPattern.test(c.token));
      if (bad !== undefined) throw new Error(`the CA sent a challenge token that is not base64url: ${JSON.stringify(bad.token.slice(0, 40))}`);
      const expires = iso(Date.now() + timing.challengeTtlMs);
      await changeResource(resourceId, (tx) =>
        insertAcmeChallenges(tx, challenges.map((c) => ({ token: c.token, resource_id: resourceId, host: c.host, key_authorization: c.keyAuthorization, expires_at: expires }))),
      );
      if (timing.settleMs > 0) await new Promise((resolve) => setTimeout(resolve, timing.settleMs));
    },
    clear: (resourceId, tokens) => changeResource(resourceId, (tx) => deleteAcmeChallenges(tx, tokens)),
  };

  const order = async (policy: ResourcePolicy, hosts: string[]): Promise<OrderOutcome> => {
    try {
      client ??= await openAcmeAccount(store.db, sealer, directory);
      return await orderCertificate(client, policy.id, hosts, board);
    } catch (e) {
      // The account or the CA failed, not the names: the next order opens the account afresh.
      client = undefined;
      return { ok: false, error: (e instanceof Error ? e.message : String(e)).slice(0, 500), authorized: [] };
    }
  };

  const keep = async (policy: ResourcePolicy, hosts: string[], issued: Extract<OrderOutcome, { ok: true }>) => {
    const stored = await changeResource(policy.id, (tx) =>
      storeManagedCertificate(tx, policy.id, {
        ssl_crt: issued.chain,
        ssl_key_sealed: sealer.seal(Buffer.from(issued.key), tlsKeyContext(policy.id)),
        ssl_expire: issued.expiresAt,
        // The resource's `updated` moves: its certificate and service_ssl_expire did.
        updated_at: new Date().toISOString(),
      }),
    );
    if (stored) logger.info({ resource: policy.id, names: hosts.length, expires: iso(issued.expiresAt * 1000) }, `managed certificate issued for resource ${String(policy.id)}`);
  };

  const serve = async (policy: ResourcePolicy, wanted: string[], attempt: AcmeAttemptRow | undefined) => {
    const outcome = await order(policy, wanted);
    if (outcome.ok) {
      await keep(policy, wanted, outcome);
      if (attempt !== undefined) await deleteAcmeAttempt(store.db, policy.id);
      return;
    }
    const hosts = wanted.join(' ');
    const failures = attempt?.hosts === hosts ? attempt.failures + 1 : 1;
    const retryAt = iso(Date.now() + backoffMs(failures, timing.backoffBaseMs, timing.backoffMaxMs));
    await saveAcmeAttempt(store.db, { resource_id: policy.id, hosts, failures, retry_at: retryAt, error: outcome.error });
    logger.warn({ resource: policy.id, failures, retryAt, error: outcome.error }, `no managed certificate for resource ${String(policy.id)}: ${outcome.error}`);
    // The names that passed get a certificate now when the resource lacks one for them; the whole
    // set is tried again after the backoff.
    const passed = outcome.authorized;
    if (passed.length === 0 || passed.length === wanted.length) return;
    if (certificateNeed(policy.tls, passed, Date.now() / 1000, timing.renewBeforeSeconds) === undefined) return;
    if (!(await holdLease())) return;
    const partial = await order(policy, passed);
    if (partial.ok) await keep(policy, passed, partial);
    else logger.warn({ resource: policy.id, error: partial.error }, `no managed certificate for the validated names of resource ${String(policy.id)} either`);
  };

  /** One look at every managed resource; resolves to when the next look is due (epoch ms). */
  const checkOnce = async (): Promise<number> => {
    const started = Date.now();
    let next = started + timing.checkEveryMs;
    // Another node issues: look again in case it goes away.
    if (!(await holdLease())) return started + Math.min(timing.checkEveryMs, timing.leaseMs);
    // Challenges of an order that never finished (a node died): their resources stop serving them.
    for (const id of await deleteExpiredAcmeChallenges(store.db, iso(started))) await options.publish({ resourceId: id, deleted: false });
    const ids = await managedResourceIds(store.db);
    if (ids.length === 0) return next;
    const attempts = new Map((await listAcmeAttempts(store.db)).map((a) => [a.resource_id, a]));
    for (const policy of await options.loadPolicies(ids)) {
      if (stopped) break;
      const wanted = wantedNames(policy.hosts);
      if (!policy.wantsManagedCertificate || policy.settings.service_enable !== 1 || wanted.length === 0) continue;
      const now = Date.now();
      if (certificateNeed(policy.tls, wanted, now / 1000, timing.renewBeforeSeconds) === undefined) {
        if (policy.tls !== undefined) next = Math.min(next, renewalTime(policy.tls, timing.renewBeforeSeconds) * 1000);
        continue;
      }
      const attempt = attempts.get(policy.id);
      if (attempt !== undefined && attempt.hosts === wanted.join(' ') && attempt.retry_at > iso(now)) {
        next = Math.min(next, Date.parse(attempt.retry_at));
        continue;
      }
      // Orders take a while: the lease is renewed before each, and a node that lost it stops.
      if (!(await holdLease())) break;
      await serve(policy, wanted, attempt);
      // Whatever it got (a certificate, a backoff), the next look sees it.
      next = Math.min(next, Date.now() + timing.wakeDelayMs);
    }
    return next;
  };

  const schedule = (delayMs: number) => {
    if (stopped || Date.now() + delayMs >= timerDue) return;
    clearTimeout(timer);
    timerDue = Date.now() + delayMs;
    timer = setTimeout(() => {
      timerDue = Infinity;
      void check();
    }, delayMs);
    timer.unref();
  };

  const check = (): Promise<void> => {
    if (running !== undefined) {
      again = true;
      return running;
    }
    running = checkOnce()
      .catch((e: unknown) => {
        logger.error({ err: e }, 'managed certificates: the check failed; it runs again later');
        return Date.now() + timing.checkEveryMs;
      })
      .then((next) => {
        running = undefined;
        const rerun = again;
        again = false;
        schedule(rerun ? 0 : Math.max(0, next - Date.now()));
      });
    return running;
  };

  return {
    start: () => schedule(0),
    wake: () => schedule(timing.wakeDelayMs),
    check,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      // An order polls the CA for minutes at worst: a stopping service waits a little, not that long.
      if (running !== undefined && (await within(running.then(() => true), stopWaitMs)) === undefined) {
        logger.warn('managed certificates: an order was still under way at stop; it is abandoned');
      }
      await releaseLease(store.db, leaseName, holder);
    },
  };
}
