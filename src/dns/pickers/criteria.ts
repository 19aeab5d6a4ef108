// The ways a record's meta can match a requester, shared by the geodns filter and the selectors.
import type { Requester } from './requester.ts';
import { inNetworks, type RecordMatch } from './record-match.ts';

export type Criterion = (match: RecordMatch, requester: Requester) => boolean;

export const criteria = {
  ip: (m, r) => inNetworks(m, r.address),
  asn: (m, r) => {
    const asn = r.geo().asn;
    return asn !== undefined && m.asns.has(asn);
  },
  country: (m, r) => {
    const country = r.geo().country;
    return country !== undefined && m.countries.has(country);
  },
  continent: (m, r) => {
    const continent = r.geo().continent;
    return continent !== undefined && m.continents.has(continent);
  },
  // Regions come from a city database's subdivisions (EDGEPLANE_GEOIP_DB); the shipped one has none.
  region: (m, r) => r.geo().regions.some((region) => m.regions.has(region)),
  default: (m) => m.isDefault,
} satisfies Record<string, Criterion>;
