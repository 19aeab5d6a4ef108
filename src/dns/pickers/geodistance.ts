// geodistance (mutator): records sorted by great-circle distance from the requester to their
// meta latlong; records without one go last. Without a requester location the order is kept.
import type { ServedRecord } from '../server/served-rrset.ts';
import type { Requester } from './requester.ts';

const radians = Math.PI / 180;

/** Haversine distance on a unit sphere: the order is all that matters. */
function distance(a: [number, number], b: [number, number]): number {
  const dLat = (b[0] - a[0]) * radians;
  const dLon = (b[1] - a[1]) * radians;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[0] * radians) * Math.cos(b[0] * radians) * Math.sin(dLon / 2) ** 2;
  return 2 * Math.asin(Math.min(1, Math.sqrt(h)));
}

export function geodistance(records: ServedRecord[], requester: Requester): ServedRecord[] {
  const from = requester.geo().location;
  if (from === undefined) return records;
  const far = Number.POSITIVE_INFINITY;
  return records
    .map((record) => ({ record, d: record.match.latlong ? distance(from, record.match.latlong) : far }))
    .sort((x, y) => x.d - y.d)
    .map((x) => x.record);
}
