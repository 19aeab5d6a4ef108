// The locations record meta may name (`continents`, `countries`, `regions`) with their names, as
// GET /dns/v2/locations answers them in the provider's shape: {"<code>": {"names": {"<lang>": name}}}.
// From the countries-list package that also validates the codes (codes.ts), so what is listed is
// exactly what record meta accepts. Continents are keyed in lower case as clients write them
// (`eu`), countries as ISO 3166-1 alpha-2 (`DE`); meta matches either in any case.
import { continents, countries } from 'countries-list';

export interface LocationNames {
  names: Record<string, string>;
}

export type Locations = Record<string, LocationNames>;

export const continentLocations: Locations = Object.fromEntries(
  Object.entries(continents).map(([code, name]) => [code.toLowerCase(), { names: { en: name } }]),
);

/** English, and the native name under the country's first language when that is not English. */
export const countryLocations: Locations = Object.fromEntries(
  Object.entries(countries).map(([code, country]) => {
    const names: Record<string, string> = { en: country.name };
    const language = country.languages[0];
    if (language !== undefined && language !== 'en' && country.native !== country.name) names[language] = country.native;
    return [code, { names }];
  }),
);

/**
 * Regions are subdivisions from a city GeoIP database (EDGEPLANE_GEOIP_DB; pickers/criteria.ts),
 * matched by ISO 3166-2 code or English name; the data we ship has no subdivision table, so there
 * is none to list, and record meta takes any region name.
 */
export const regionLocations: Locations = {};
