// Rate counters of this thread alone (placeholder until the GCRA counters land).
import type { RateCounters } from './rate-counters.ts';

export function localCounters(): RateCounters {
  return { take: () => 0, close: () => Promise.resolve() };
}
