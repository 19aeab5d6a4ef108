// Rate counters shared by every proxy node through Redis (EDGEPLANE_REDIS_URL): one atomic round
// trip per decision, a Lua script doing GCRA on the Redis server's clock (TIME), so nodes whose
// clocks disagree still share one bucket exactly. Buckets expire when they are full again.
//
// When Redis is away the proxy keeps deciding, with this node's own counters (local-counters.ts):
// each node then allows a client up to the whole rate by itself, which is lenient, and nothing waits
// for Redis. "Away" is: not connected (reconnection is retried with a backoff up to 5 s), or a
// command not answered within `commandTimeoutMs` (then Redis is left alone for `cooldownMs`, and
// one decision alone tries it again: a slow Redis delays one request per cool-down, not all of
// them). The outage is logged once when it starts and once when the counters are shared again.
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { LocalCounters } from './local-counters.ts';
import type { RateCounters } from './rate-counters.ts';

export interface RedisCountersOptions {
  url: string;
  /** Decides while Redis is away. */
  fallback: LocalCounters;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** Prepended to every bucket key; default `edgeplane:rate:`. */
  prefix?: string;
  /** How long a decision may wait for Redis; default 100 ms. */
  commandTimeoutMs?: number;
  /** After a timeout, how long decisions stay local; default 1 s. */
  cooldownMs?: number;
}

// KEYS[1]: the bucket; ARGV: emission interval and tolerance, integer microseconds. Returns 0 when
// allowed, else the microseconds to wait. All values are integers, exact in Lua's doubles.
const gcra = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local interval = tonumber(ARGV[1])
local tat = tonumber(redis.call('GET', KEYS[1]))
if not tat or tat < now then tat = now end
local wait = tat - now - tonumber(ARGV[2])
if wait > 0 then return wait end
tat = tat + interval
redis.call('SET', KEYS[1], tat, 'PX', math.ceil((tat - now) / 1000))
return 0
`;
const gcraSha = createHash('sha1').update(gcra).digest('hex');

export function redisCounters(options: RedisCountersOptions): RateCounters {
  const { fallback, logger } = options;
  const prefix = options.prefix ?? 'edgeplane:rate:';
  const cooldownMs = options.cooldownMs ?? 1000;
  const redis = new Redis(options.url, {
    // A command while disconnected fails at once instead of queueing: take() decides locally then.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 100,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 6), 5000),
    // Decisions of concurrent requests go out in one write.
    enableAutoPipelining: true,
  });
  let away = false;
  let closing = false;
  // After a timeout: decisions are local until then, and then one decision alone tries Redis again.
  let localUntil = 0;
  let probing = false;
  const wentAway = (error: unknown) => {
    if (away || closing) return;
    away = true;
    logger.warn({ err: error }, 'rate counters: Redis is away; each proxy node counts on its own until it is back');
  };
  const cameBack = () => {
    localUntil = 0;
    probing = false;
    if (!away) return;
    away = false;
    logger.info('rate counters: Redis answers again; counters are shared again');
  };
  redis.on('error', wentAway);
  redis.on('close', () => wentAway(new Error('connection closed')));
  // Loaded ahead so the first decisions are EVALSHA hits.
  redis.on('ready', () => {
    redis.script('LOAD', gcra).catch(() => undefined);
  });

  const run = (key: string, interval: number, tolerance: number): Promise<unknown> =>
    redis.evalsha(gcraSha, 1, key, interval, tolerance).catch((error: unknown) => {
      // The server lost its script cache (restart, SCRIPT FLUSH, failover): EVAL loads it again.
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) return redis.eval(gcra, 1, key, interval, tolerance);
      throw error;
    });

  return {
    take(key, perSecond, burst) {
      if (redis.status !== 'ready') return fallback.take(key, perSecond, burst);
      if (localUntil !== 0) {
        if (probing || Date.now() < localUntil) return fallback.take(key, perSecond, burst);
        probing = true;
      }
      const interval = Math.max(1, Math.round(1e6 / perSecond));
      const tolerance = (Math.max(1, burst) - 1) * interval;
      return run(prefix + key, interval, tolerance).then(
        (wait) => {
          cameBack();
          return Number(wait) / 1e6;
        },
        (error: unknown) => {
          localUntil = Date.now() + cooldownMs;
          probing = false;
          wentAway(error);
          return fallback.take(key, perSecond, burst);
        },
      );
    },
    async close() {
      closing = true;
      redis.disconnect();
      await fallback.close();
    },
  };
}
