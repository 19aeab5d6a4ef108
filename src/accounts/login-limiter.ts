// Login throttling: 5 attempts per second per source address and, separately, per username,
// so neither one address nor a spread of addresses can hammer one account.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { throttled } from '../errors.ts';

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
        await byAddress.consume(address);
        if (username !== '') await byUser.consume(username.toLowerCase());
      } catch (e) {
        if (!(e instanceof RateLimiterRes)) throw e;
        throw throttled(Math.max(1, Math.ceil(e.msBeforeNext / 1000)));
      }
    },
  };
}
