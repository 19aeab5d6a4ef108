// What the GeoDNS pickers know of a requester's address.

export interface GeoInfo {
  /** ISO 3166-1 alpha-2, upper case */
  country: string | undefined;
  /** AF AN AS EU NA OC SA: the database's, else the country's */
  continent: string | undefined;
  asn: number | undefined;
  /** [latitude, longitude] when the database has a location (city databases), else undefined */
  location: [number, number] | undefined;
  /** Subdivisions (city databases), each as its ISO 3166-2 code (US-CA) and its English name, upper case */
  regions: readonly string[];
}

export const unknownGeo: GeoInfo = { country: undefined, continent: undefined, asn: undefined, location: undefined, regions: [] };
