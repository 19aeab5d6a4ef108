// Login throttling: 5 attempts per second per client and, separately, per username, so neither one
// client nor a spread of clients can hammer one account. A client is its IPv4 address or its IPv6
// /64 (net/client-key.ts): one subscriber holds a whole /64 and could otherwise rotate addresses.
// What a spread over many clients and usernames still gets through is bounded by the password hasher.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { throttled } from '../errors.ts';
import { clientKey } from '../net/client-key.ts';

const perSecond = 5;

export interface LoginLimiter {
  /** Throws a 429 ApiError when either budget is spent. */
  consume(address: string, username: string): Promise<void>;
}

export function loginLimiter(): LoginLimiter {
  const byAddress = new RateLimiterMemory({ keyPrefix: 'addr', points: perSecond, duration: 1 });
  const byUser = new RateLimiterMemory({ keyPrefix: 'user', points: perSecond, duration: 1 });
  return {
    consume: async (address, username) => {
      try {
        await byAddress.consume(clientKey(address));
        if (username !== '') await byUser.consume(username.toLowerCase());
      } catch (e) {
        if (!(e instanceof RateLimiterRes)) throw e;
        throw throttled(Math.max(1, Math.ceil(e.msBeforeNext / 1000)));
      }
    },
  };
}
