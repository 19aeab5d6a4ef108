// weighted_shuffle (mutator): a random order in which each record comes earlier with probability
// proportional to its meta weight (default 50): repeated weighted draws without replacement.
import type { ServedRecord } from '../server/served-rrset.ts';

export function weightedShuffle(records: ServedRecord[], random: () => number = Math.random): ServedRecord[] {
  const pool = [...records];
  const out: ServedRecord[] = [];
  while (pool.length > 0) {
    const total = pool.reduce((sum, r) => sum + r.match.weight, 0);
    let target = random() * total;
    // With every weight 0 the draw is uniform; rounding can leave the target past the last record.
    const drawn = total > 0 ? pool.findIndex((r) => (target -= r.match.weight) < 0) : Math.floor(random() * pool.length);
    out.push(...pool.splice(drawn < 0 ? pool.length - 1 : drawn, 1));
  }
  return out;
}
