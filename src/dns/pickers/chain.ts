// The picker chain of an RRset, applied per query in the order the RRset lists its pickers
// (NS1-style filter chain). Selectors stop at the first that matches; `limit` caps each step.
import type { ServedRecord } from '../server/served-rrset.ts';
import { geodistance } from './geodistance.ts';
import { geodns } from './geodns.ts';
import type { Requester } from './requester.ts';
import { selectBy } from './select-by.ts';
import type { Picker } from './validate.ts';
import { weightedShuffle } from './weighted-shuffle.ts';

export function applyPickers(records: ServedRecord[], pickers: Picker[], requester: Requester): ServedRecord[] {
  let current = records;
  let selected = false;
  for (const picker of pickers) {
    let next: ServedRecord[];
    switch (picker.type) {
      case 'geodns':
        next = geodns(current, requester, picker);
        break;
      case 'asn':
      case 'country':
      case 'continent':
      case 'region':
      case 'ip':
      case 'default': {
        if (selected) continue;
        const kept = selectBy(picker.type, current, requester);
        selected = kept !== undefined;
        next = kept ?? (picker.strict ? [] : current);
        break;
      }
      case 'geodistance':
        next = geodistance(current, requester);
        break;
      case 'weighted_shuffle':
        next = weightedShuffle(current);
        break;
      case 'first_n':
        next = current.slice(0, picker.limit > 0 ? picker.limit : 1);
        break;
      // Records whose check fails are dropped; when every one fails, strict answers none and
      // otherwise all are kept (an answer that may work beats none).
      case 'healthcheck':
      case 'is_healthy': {
        const up = current.filter((r) => r.up);
        next = up.length > 0 ? up : picker.strict ? [] : current;
        break;
      }
    }
    current = picker.limit > 0 ? next.slice(0, picker.limit) : next;
  }
  return current;
}
