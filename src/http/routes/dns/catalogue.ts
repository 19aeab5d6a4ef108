// The provider's catalogue endpoints: GET /dns/v2/pickers, /dns/v2/pickers/presets and
// /dns/v2/locations[/continents|/countries|/regions]. Fixed lists, the same for every account, but
// authenticated like the rest of /dns/v2 (the provider requires a token for them too).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { pickerList, pickerPresets } from '../../../dns/pickers/catalogue.ts';
import { continentLocations, countryLocations, regionLocations, type Locations as LocationTable } from '../../../geo/locations.ts';
import { errors } from '../../schemas/common.ts';
import { AllLocations, Locations, PickerList, PickerPresets } from '../../schemas/dns-catalogue.ts';

const pickersTag = ['dns pickers'];
const locationsTag = ['dns locations'];

export function catalogueRoutes(app: FastifyInstance): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/dns/v2/pickers',
    { schema: { tags: pickersTag, summary: 'The picker types RRsets may use, with a label each', response: { 200: PickerList, ...errors(401) } } },
    () => pickerList(),
  );
  r.get(
    '/dns/v2/pickers/presets',
    { schema: { tags: pickersTag, summary: 'Preset picker chains by name (each ends with first_n)', response: { 200: PickerPresets, ...errors(401) } } },
    () => pickerPresets(),
  );
  r.get(
    '/dns/v2/locations',
    { schema: { tags: locationsTag, summary: 'Continents, countries and regions record meta may name', response: { 200: AllLocations, ...errors(401) } } },
    () => ({ continents: continentLocations, countries: countryLocations, regions: regionLocations }),
  );
  const tables: [string, string, LocationTable][] = [
    ['continents', 'Continent codes (meta `continents`) and their names', continentLocations],
    ['countries', 'ISO 3166-1 alpha-2 country codes (meta `countries`) and their names', countryLocations],
    ['regions', 'Regions (meta `regions`): none listed with the shipped GeoIP data', regionLocations],
  ];
  for (const [path, summary, table] of tables) {
    r.get(`/dns/v2/locations/${path}`, { schema: { tags: locationsTag, summary, response: { 200: Locations, ...errors(401) } } }, () => table);
  }
}
