// Country (ISO 3166-1 alpha-2) and continent codes, with the continent of each country, from the
// countries-list package. Codes are matched in any case.
import { continents, countries } from 'countries-list';

const continentOfCountry = new Map<string, string>(Object.entries(countries).map(([code, data]) => [code, data.continent]));
const continentCodes = new Set(Object.keys(continents));

export function isCountryCode(code: string): boolean {
  return continentOfCountry.has(code.toUpperCase());
}

export function isContinentCode(code: string): boolean {
  return continentCodes.has(code.toUpperCase());
}

/** The continent code (upper case) of a country, or undefined. */
export function continentOf(country: string): string | undefined {
  return continentOfCountry.get(country.toUpperCase());
}
