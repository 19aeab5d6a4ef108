// Who is asking, geographically: country, continent, ASN and (city databases only) location of an
// address, for the GeoDNS pickers. Shipped data: ip-location-db's geo-whois-asn-country .mmdb (CC0)
// and its ASN ranges (CC BY 4.0: RouteViews, NRO, DB-IP; see the README). An operator's .mmdb
// (MaxMind GeoLite2/GeoIP2 Country, City or ASN, or alike) answers first; the shipped data fills in
// per address what it lacks: country and continent where it has no country (an ASN-only database,
// a network it does not cover), the ASN where it has none. Location comes only from that database.
import { fileURLToPath } from 'node:url';
import { notAddress, parseAddress } from './address.ts';
import { AsnRanges, loadAsnTables, type AsnTables } from './asn-ranges.ts';
import { unknownGeo, type GeoInfo } from './geo-info.ts';
import { MmdbGeo, readMmdb } from './mmdb.ts';
import { globallyReachable } from './special-purpose.ts';

export interface GeoLookup {
  /** address: dotted IPv4 or IPv6 text (as Node's dgram rinfo.address gives, incl. '::ffff:1.2.3.4' mapped forms) */
  lookup(address: string): GeoInfo;
}

/**
 * The data every lookup reads, in shared memory (about 16 MB with the shipped data): the process
 * loads it once and hands it to each DNS and proxy thread, whose lookups then read the same bytes
 * (structured cloning shares a SharedArrayBuffer rather than copying it).
 */
export interface GeoData {
  /** The shipped country .mmdb. */
  countries: Uint8Array;
  /** The shipped ASN ranges. */
  asns: AsnTables;
  /** The operator's .mmdb, if any. */
  custom: Uint8Array | undefined;
}

const packageFile = (name: string, file: string) => fileURLToPath(new URL(file, import.meta.resolve(`${name}/package.json`)));

/** The shipped country .mmdb (IPv4 and IPv6 in one tree). */
export const defaultCountryDb = packageFile('@ip-location-db/geo-whois-asn-country-mmdb', 'geo-whois-asn-country.mmdb');

const maxKnown = 65_536;

/** The shipped data never change and are only read: a process loads them once, however many
 *  servers it starts (tests start many). A failed load is not kept. */
let shipped: Promise<Omit<GeoData, 'custom'>> | undefined;
function shippedData(): Promise<Omit<GeoData, 'custom'>> {
  shipped ??= Promise.all([
    readMmdb(defaultCountryDb),
    loadAsnTables(packageFile('@ip-location-db/asn', 'asn-ipv4.csv'), packageFile('@ip-location-db/asn', 'asn-ipv6.csv')),
  ]).then(
    ([countries, asns]) => ({ countries, asns }),
    (e: unknown) => {
      shipped = undefined;
      throw e;
    },
  );
  return shipped;
}

/** Reads everything, so the first answers are already geo-aware: about 0.3 s the first time in a
 *  process, most of it parsing the ASN ranges. Once per process: the threads are handed the result. */
export async function loadGeoData(options: { mmdbPath?: string | undefined }): Promise<GeoData> {
  const { mmdbPath } = options;
  const [custom, data] = await Promise.all([mmdbPath === undefined ? undefined : readMmdb(mmdbPath), shippedData()]);
  return { ...data, custom };
}

/** Lookups over loaded data (in this thread or another): builds no copy of it. */
export function geoLookup(data: GeoData): GeoLookup {
  const custom = data.custom === undefined ? undefined : new MmdbGeo(data.custom);
  const countries = new MmdbGeo(data.countries);
  const asns = new AsnRanges(data.asns);
  const words = new Uint32Array(4);
  // Queries come from a limited set of resolvers and client subnets: their answers are kept, up to a bound.
  const known = new Map<string, GeoInfo>();
  const find = (address: string): GeoInfo => {
    const family = parseAddress(address, words);
    if (family === notAddress || !globallyReachable(family, words)) return unknownGeo;
    const own = custom?.lookup(family, words);
    const place = own?.country === undefined ? countries.lookup(family, words) : own;
    return {
      country: place?.country,
      continent: place?.continent,
      asn: own?.asn ?? asns.lookup(family, words),
      location: own?.location,
      regions: own?.regions ?? unknownGeo.regions,
    };
  };
  return {
    lookup(address) {
      let info = known.get(address);
      if (info === undefined) {
        if (known.size >= maxKnown) known.clear();
        info = find(address);
        known.set(address, info);
      }
      return info;
    },
  };
}
