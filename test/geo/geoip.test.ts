// GeoIP lookups against the shipped data (only what is stable registry data: the networks of
// Google, Cloudflare, Quad9 and the RIPE NCC) and against small custom databases written here.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { defaultCountryDb, geoLookup, loadGeoData, type GeoLookup } from '../../src/geo/geoip.ts';
import { writeMmdb } from './mmdb-writer.ts';

const openGeo = async (options: { mmdbPath?: string }) => geoLookup(await loadGeoData(options));
const unknown = { country: undefined, continent: undefined, asn: undefined, location: undefined, regions: [] };
let geo: GeoLookup;
let dir: string;

before(async () => {
  geo = await openGeo({});
  dir = await mkdtemp(join(tmpdir(), 'edgeplane-geo-'));
});
after(() => rm(dir, { recursive: true, force: true }));

test('country from the shipped data, continent from the country, ASN from the ranges, no location', () => {
  assert.deepEqual(geo.lookup('8.8.8.8'), { country: 'US', continent: 'NA', asn: 15169, location: undefined, regions: [] });
  assert.deepEqual(geo.lookup('193.0.6.139'), { country: 'NL', continent: 'EU', asn: 3333, location: undefined, regions: [] });
  assert.deepEqual(geo.lookup('9.9.9.9'), { country: 'US', continent: 'NA', asn: 19281, location: undefined, regions: [] });
  assert.equal(geo.lookup('1.1.1.1').asn, 13335);
});

test('IPv6', () => {
  assert.deepEqual(geo.lookup('2001:4860:4860::8888'), { country: 'US', continent: 'NA', asn: 15169, location: undefined, regions: [] });
  assert.equal(geo.lookup('2a00:1450::1').asn, 15169);
  assert.equal(geo.lookup('2606:4700:4700::1111').asn, 13335);
  assert.equal(geo.lookup('2620:fe::fe').asn, 19281);
  assert.equal(geo.lookup('2001:67c:2e8:22::c100:68b').asn, 3333);
});

test('IPv4-mapped IPv6 is its IPv4 address', () => {
  assert.deepEqual(geo.lookup('::ffff:8.8.8.8'), geo.lookup('8.8.8.8'));
  assert.deepEqual(geo.lookup('::ffff:c100:68b'), geo.lookup('193.0.6.139'));
});

test('addresses that are not globally reachable have no geography, whatever the data says', () => {
  for (const address of ['10.1.2.3', '127.0.0.1', '172.16.0.1', '192.168.1.1', '100.64.0.1', '169.254.1.1', '192.0.2.1',
    '198.51.100.7', '203.0.113.9', '224.0.0.251', '255.255.255.255', '0.0.0.0', '::', '::1', '::ffff:192.168.1.1',
    'fe80::1%eth0', 'fd00::1', '2001:db8::1', 'ff02::fb']) {
    assert.deepEqual(geo.lookup(address), unknown, address);
  }
});

test('what is not an address is unknown, without throwing', () => {
  for (const address of ['', 'hello', '1.2.3', '1.2.3.4.5', '999.1.1.1', ':::', '2001:4860::8888::1', '8.8.8.8 ', 'example.com']) {
    assert.deepEqual(geo.lookup(address), unknown, address);
  }
});

test('the shipped country .mmdb given as mmdbPath answers like the default', async () => {
  const explicit = await openGeo({ mmdbPath: defaultCountryDb });
  for (const address of ['8.8.8.8', '193.0.6.139', '2001:4860:4860::8888', '10.0.0.1']) {
    assert.deepEqual(explicit.lookup(address), geo.lookup(address), address);
  }
});

// A custom database answers first; the shipped data fills in the country (with its continent) where
// it has none, and the ASN where it has none.
const custom = {
  // GeoIP2 City shape: its own country, continent and location win; ASN from the shipped ranges.
  '8.8.8.0/24': {
    country: { iso_code: 'DE' },
    continent: { code: 'EU' },
    location: { latitude: 50.11, longitude: 8.68, accuracy_radius: 100 },
    subdivisions: [{ iso_code: 'HE', names: { en: 'Hesse', de: 'Hessen' } }],
  },
  // GeoLite2 ASN shape: country from the shipped data.
  '1.1.1.0/24': { autonomous_system_number: 64500, autonomous_system_organization: 'Example' },
  // Registered country only, ASN in traits (GeoIP2 Enterprise): continent from the country.
  '9.9.9.0/24': { registered_country: { iso_code: 'CH' }, traits: { autonomous_system_number: 64501 } },
  // ip-location-db's flat shape, in lower case.
  '2001:4860::/32': { country_code: 'jp', latitude: 35.69, longitude: 139.69 },
};

for (const recordSize of [24, 28, 32] as const) {
  test(`a custom ${recordSize}-bit IPv6 database layered over the shipped data`, async () => {
    const path = join(dir, `custom-${recordSize}.mmdb`);
    await writeFile(path, writeMmdb(custom, { recordSize, ipVersion: 6 }));
    const layered = await openGeo({ mmdbPath: path });
    assert.deepEqual(layered.lookup('8.8.8.8'), { country: 'DE', continent: 'EU', asn: 15169, location: [50.11, 8.68], regions: ['DE-HE', 'HESSE'] });
    assert.deepEqual(layered.lookup('::ffff:8.8.8.8'), layered.lookup('8.8.8.8'));
    assert.deepEqual(layered.lookup('1.1.1.1'), { ...geo.lookup('1.1.1.1'), asn: 64500 });
    assert.deepEqual(layered.lookup('9.9.9.9'), { country: 'CH', continent: 'EU', asn: 64501, location: undefined, regions: [] });
    assert.deepEqual(layered.lookup('2001:4860:4860::8888'), { country: 'JP', continent: 'AS', asn: 15169, location: [35.69, 139.69], regions: [] });
    assert.deepEqual(layered.lookup('193.0.6.139'), geo.lookup('193.0.6.139'), 'not in the custom database');
    assert.deepEqual(layered.lookup('8.8.4.4'), geo.lookup('8.8.4.4'), 'next to a custom network');
    assert.deepEqual(layered.lookup('192.168.1.1'), unknown);
  });
}

test('a custom IPv4-only database leaves IPv6 to the shipped data', async () => {
  const path = join(dir, 'custom-v4.mmdb');
  await writeFile(path, writeMmdb({ '8.8.8.0/24': { country: { iso_code: 'DE' } } }, { recordSize: 24, ipVersion: 4 }));
  const layered = await openGeo({ mmdbPath: path });
  assert.deepEqual(layered.lookup('8.8.8.8'), { country: 'DE', continent: 'EU', asn: 15169, location: undefined, regions: [] });
  assert.deepEqual(layered.lookup('2001:4860:4860::8888'), geo.lookup('2001:4860:4860::8888'));
});

test('a custom database that cannot be used is a clear error', async () => {
  const missing = join(dir, 'missing.mmdb');
  await assert.rejects(openGeo({ mmdbPath: missing }), new RegExp(`^Error: GeoIP database ${missing} cannot be read: ENOENT`));
  const text = join(dir, 'text.mmdb');
  await writeFile(text, 'not a database\n');
  await assert.rejects(openGeo({ mmdbPath: text }), new RegExp(`^Error: GeoIP database ${text} is not a MaxMind DB \\(\\.mmdb\\)`));
});
