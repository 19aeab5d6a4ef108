// Password hashing under a bound. Argon2id is costly by design (19 MiB and tens of milliseconds of a
// core per hash) and runs on libuv's threadpool, whose queue has no limit: a login flood spread over
// many addresses and usernames, each within its rate limit, would pile up minutes of hashing, hold
// every flooding connection open and take the CPU from every other request. So at most `concurrency`
// hashes run at once and at most `queue` more wait; past that a request is refused at once with 429
// and Retry-After, which clients already honour for login throttling. Every hash of the process goes
// through its one hasher: login (with the decoy for unknown users), new users and accounts, the first
// administrator.
import pLimit from 'p-limit';
import { Counter, Gauge, type Registry } from 'prom-client';
import { throttled } from '../errors.ts';
import { decoyHash, hashPassword, verifyPassword } from './passwords.ts';

export interface HashingLimits {
  /** Hashes computed at once. */
  concurrency: number;
  /** Hashes that may wait for a free slot; more are refused. */
  queue: number;
}

export interface PasswordHasher {
  /**
   * Throws the 429 now if a hash would be refused now: lets a login skip its user lookup when the
   * check would be refused anyway, so a flood costs the store nothing. The hash may still be refused.
   */
  admit(): void;
  /** A new stored hash; a 429 ApiError when the hasher is full. */
  hash(password: string): Promise<string>;
  /**
   * Whether the password matches the stored hash. Without one (no such user) it is checked against a
   * decoy, so the answer takes as long as for a real user. A 429 ApiError when the hasher is full.
   */
  verify(password: string, stored: string | undefined): Promise<boolean>;
}

/** Seconds a refused caller is told to wait: the queue drains within about that. */
const retryAfterSeconds = 1;

export function passwordHasher(limits: HashingLimits, registry?: Registry): PasswordHasher {
  // p-limit bounds the concurrency; its counters let us bound the queue too (it has no limit of its own).
  const limit = pLimit(limits.concurrency);
  const refused = registry && metrics(registry, () => limit.activeCount, () => limit.pendingCount);
  const decoy = decoyHash();
  const admit = () => {
    if (limit.activeCount + limit.pendingCount >= limits.concurrency + limits.queue) {
      refused?.inc();
      throw throttled(retryAfterSeconds, 'too many password checks in progress, retry later');
    }
  };
  const run = async <T>(work: () => Promise<T>): Promise<T> => {
    admit();
    return limit(work);
  };
  return {
    admit,
    hash: (password) => run(() => hashPassword(password)),
    verify: (password, stored) => run(() => verifyPassword(password, stored ?? decoy)),
  };
}

/** The hasher's gauges, read at scrape time, and the counter of refusals it returns. */
function metrics(registry: Registry, running: () => number, waiting: () => number): Counter {
  new Gauge({
    name: 'edgeplane_password_hashes_running',
    help: 'Password hashes (Argon2id) being computed',
    registers: [registry],
    collect() {
      this.set(running());
    },
  });
  new Gauge({
    name: 'edgeplane_password_hashes_waiting',
    help: 'Password hashes waiting for a free slot',
    registers: [registry],
    collect() {
      this.set(waiting());
    },
  });
  return new Counter({
    name: 'edgeplane_password_hashes_refused_total',
    help: 'Logins and user creations refused with 429 because the password hasher was full',
    registers: [registry],
  });
}
