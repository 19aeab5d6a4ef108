// Delivers the webhook outbox: at least once, in order per zone, with retries and backoff, and
// only to targets the destination policy allows. Several API nodes may run it on one database.
import type { LookupAddress } from 'node:dns';
import { http } from '../net/node-http.ts';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../store/database.ts';
import { claimDueWebhooks, markWebhookDelivered, recordWebhookFailure, type WebhookRow } from './webhook-outbox.ts';
import { checkWebhookTarget, WebhookTargetError } from './webhook-target.ts';

export interface WebhookDeliveryOptions {
  db: Db;
  logger: FastifyBaseLogger;
  /** Lets webhooks reach loopback and private addresses (tests, closed networks). */
  allowPrivate: boolean;
  /** How often the outbox is read for rows that other nodes enqueued or whose retry is due. */
  pollIntervalMs?: number;
  /** Per attempt, from connecting to the response's status line. */
  timeoutMs?: number;
  /** Attempts before a row is given up (failed_at). */
  maxAttempts?: number;
  /** First retry delay; it doubles per attempt up to an hour. */
  backoffBaseMs?: number;
  /** Deliveries in flight at once (each to a different zone). */
  concurrency?: number;
}

export interface WebhookDelivery {
  /** Reads the outbox now: called after a commit that enqueued a webhook. */
  wake(): void;
  /** Stops polling and waits for the deliveries in flight. */
  stop(): Promise<void>;
}

const maxBackoffMs = 60 * 60 * 1000;
/** A claim outlives its attempt by this much, so a slow DNS answer does not let a second node in. */
const leaseMarginMs = 60 * 1000;

export function startWebhookDelivery(options: WebhookDeliveryOptions): WebhookDelivery {
  const { db, logger, allowPrivate } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxAttempts = options.maxAttempts ?? 12;
  const backoffBaseMs = options.backoffBaseMs ?? 1000;
  const concurrency = options.concurrency ?? 8;

  const inFlight = new Set<Promise<void>>();
  let polling: Promise<void> | undefined;
  let pollAgain = false;
  let stopped = false;

  const timer = setInterval(wake, pollIntervalMs);
  // The worker never keeps a process alive by itself: the server or stop() ends it.
  timer.unref();
  wake();

  function wake(): void {
    if (stopped) return;
    if (polling !== undefined) {
      pollAgain = true;
      return;
    }
    polling = poll().finally(() => (polling = undefined));
  }

  async function poll(): Promise<void> {
    try {
      do {
        pollAgain = false;
        const room = concurrency - inFlight.size;
        // A delivery that finishes wakes the worker again.
        if (room <= 0) return;
        const now = Date.now();
        const rows = await claimDueWebhooks(db, {
          now: new Date(now).toISOString(),
          leaseUntil: new Date(now + timeoutMs + leaseMarginMs).toISOString(),
          limit: room,
        });
        for (const row of rows) track(attempt(row));
        // A full batch may have left due rows behind.
        if (rows.length === room) pollAgain = true;
      } while (pollAgain && !stopped);
    } catch (error) {
      logger.error({ err: error }, 'reading the webhook outbox failed');
    }
  }

  function track(delivery: Promise<void>): void {
    inFlight.add(delivery);
    // The zone's next row, if any, is due as soon as this one is settled.
    void delivery.finally(() => {
      inFlight.delete(delivery);
      wake();
    });
  }

  /** One attempt of a claimed row; never rejects (a failed write leaves the lease to expire). */
  async function attempt(row: WebhookRow): Promise<void> {
    const lease = row.next_attempt_at;
    const log = { webhook: row.id, zone: row.zone_id, target: originOf(row.url), attempt: row.attempts };
    try {
      let error: string;
      try {
        const addresses = await checkWebhookTarget(row.url, allowPrivate);
        const status = await send(row, addresses, timeoutMs);
        if (status >= 200 && status < 300) {
          await markWebhookDelivered(db, row.id, new Date().toISOString());
          logger.info({ ...log, status }, 'webhook delivered');
          return;
        }
        error = status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
      } catch (caught) {
        error = caught instanceof Error ? caught.message : String(caught);
        if (caught instanceof WebhookTargetError) {
          const at = new Date().toISOString();
          await recordWebhookFailure(db, { id: row.id, lease, error, at, retryAt: undefined });
          logger.warn({ ...log, error }, 'webhook target refused; not delivering');
          return;
        }
      }
      const now = Date.now();
      if (row.attempts >= maxAttempts) {
        await recordWebhookFailure(db, { id: row.id, lease, error, at: new Date(now).toISOString(), retryAt: undefined });
        logger.warn({ ...log, error }, 'webhook given up');
        return;
      }
      const retryAt = new Date(now + backoff(row.attempts, backoffBaseMs)).toISOString();
      await recordWebhookFailure(db, { id: row.id, lease, error, at: new Date(now).toISOString(), retryAt });
      logger.info({ ...log, error, retry_at: retryAt }, 'webhook attempt failed; will retry');
    } catch (error) {
      logger.error({ ...log, err: error }, 'recording a webhook attempt failed');
    }
  }

  return {
    wake,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await polling;
      await Promise.all(inFlight);
    },
  };
}

/** Exponential, capped, with jitter so that retries of many rows do not arrive in step. */
function backoff(attempts: number, baseMs: number): number {
  const ceiling = Math.min(baseMs * 2 ** (attempts - 1), maxBackoffMs);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Logs name the receiver, not the whole URL: its path or query may hold a secret. */
function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : 'invalid URL';
}

/**
 * Sends one attempt and answers the status code. node:http rather than fetch, so that the connection
 * goes to the addresses the policy vetted (see checkWebhookTarget) and to nothing resolved later;
 * it follows no redirects either.
 */
function send(row: WebhookRow, addresses: LookupAddress[], timeoutMs: number): Promise<number> {
  const method = row.method.toUpperCase();
  const body = method === 'GET' || method === 'HEAD' ? undefined : row.payload;
  const headers: Record<string, string> = {
    'User-Agent': 'edgeplane-webhook',
    // Stays the same across retries: receivers use it to drop a delivery they already have.
    'X-Edgeplane-Delivery': String(row.id),
  };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(body));
  }
  const url = new URL(row.url);
  const request = url.protocol === 'https:' ? https.request : http.request;
  const signal = AbortSignal.timeout(timeoutMs);
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers, signal, agent: false, lookup: pinnedLookup(addresses) }, (response) => {
      resolve(response.statusCode ?? 0);
      // Only the status matters; the body is not read and the connection is not reused.
      response.destroy();
    });
    outgoing.on('error', (error) => reject(signal.aborted ? new Error(`no response within ${timeoutMs} ms`) : error));
    outgoing.end(body);
  });
}

/** Answers the connection's lookup from the vetted addresses instead of asking DNS again. */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    const usable = addresses.filter((a) => wanted === 0 || a.family === wanted);
    const [first] = usable;
    if (first === undefined) {
      callback(Object.assign(new Error(`no IPv${wanted} address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    } else if (options.all === true) {
      callback(null, usable);
    } else {
      callback(null, first.address, first.family);
    }
  };
}
