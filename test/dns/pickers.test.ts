// The picker chain on its own: each picker type's rule from compat.md, with requesters whose geo
// data is given directly (the GeoIP lookup itself is tested against real data in test/geo).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyPickers } from '../../src/dns/pickers/chain.ts';
import { compileMeta } from '../../src/dns/pickers/record-match.ts';
import { requester } from '../../src/dns/pickers/requester.ts';
import type { Picker } from '../../src/dns/pickers/validate.ts';
import { weightedShuffle } from '../../src/dns/pickers/weighted-shuffle.ts';
import type { ServedRecord } from '../../src/dns/server/served-rrset.ts';
import type { GeoInfo } from '../../src/geo/geo-info.ts';

// A record stands for its label: its position in this list.
const allLabels: string[] = [];
const record = (label: string, meta: Record<string, unknown> = {}, up = true): ServedRecord => ({ index: allLabels.push(label) - 1, match: compileMeta(meta), up });
const labels = (records: ServedRecord[]) => records.map((r) => allLabels[r.index]);
const from = (address: string, geo: Partial<GeoInfo> = {}) =>
  requester(address, { lookup: () => ({ country: undefined, continent: undefined, asn: undefined, location: undefined, regions: [], ...geo }) });
const picker = (type: Picker['type'], extra: Partial<Picker> = {}): Picker => ({ type, limit: 0, strict: false, ...extra });

const records = [
  record('de', { countries: ['de'] }),
  record('eu', { continents: ['EU'] }),
  record('as15169', { asn: [15169] }),
  record('office', { ip: ['198.51.100.0/24'] }),
  record('fallback', { default: true }),
];

test('geodns tries ip, then asn, country, continent, then the default records', () => {
  assert.deepEqual(labels(applyPickers(records, [picker('geodns')], from('198.51.100.7', { country: 'DE', asn: 15169 }))), ['office']);
  assert.deepEqual(labels(applyPickers(records, [picker('geodns')], from('192.0.2.1', { country: 'DE', asn: 15169 }))), ['as15169']);
  assert.deepEqual(labels(applyPickers(records, [picker('geodns')], from('192.0.2.1', { country: 'DE', continent: 'EU' }))), ['de']);
  assert.deepEqual(labels(applyPickers(records, [picker('geodns')], from('192.0.2.1', { country: 'FR', continent: 'EU' }))), ['eu']);
  assert.deepEqual(labels(applyPickers(records, [picker('geodns')], from('192.0.2.1', { country: 'JP', continent: 'AS' }))), ['fallback']);
});

test('geodns without a match: strict gives nothing, otherwise everything', () => {
  const plain = records.slice(0, 2);
  assert.deepEqual(labels(applyPickers(plain, [picker('geodns', { strict: true })], from('192.0.2.1', { country: 'JP' }))), []);
  assert.deepEqual(labels(applyPickers(plain, [picker('geodns')], from('192.0.2.1', { country: 'JP' }))), ['de', 'eu']);
});

test('selectors stop at the first that matches; an unmatched one passes every record on', () => {
  const chain = [picker('country'), picker('continent'), picker('default')];
  assert.deepEqual(labels(applyPickers(records, chain, from('192.0.2.1', { country: 'DE', continent: 'EU' }))), ['de']);
  assert.deepEqual(labels(applyPickers(records, chain, from('192.0.2.1', { country: 'FR', continent: 'EU' }))), ['eu']);
  assert.deepEqual(labels(applyPickers(records, chain, from('192.0.2.1', { country: 'JP', continent: 'AS' }))), ['fallback']);
  assert.deepEqual(labels(applyPickers(records, [picker('asn')], from('192.0.2.1', { asn: 1 }))), labels(records));
  assert.deepEqual(labels(applyPickers(records, [picker('ip'), picker('first_n')], from('198.51.100.200'))), ['office']);
});

test('first_n keeps the first `limit` records (1 by default); limit caps any picker', () => {
  assert.deepEqual(labels(applyPickers(records, [picker('first_n')], from('192.0.2.1'))), ['de']);
  assert.deepEqual(labels(applyPickers(records, [picker('first_n', { limit: 3 })], from('192.0.2.1'))), ['de', 'eu', 'as15169']);
  assert.deepEqual(labels(applyPickers(records, [picker('geodns', { limit: 2 })], from('192.0.2.1', { country: 'JP' }))), ['fallback']);
});

test('geodistance sorts by distance to latlong; records without one go last', () => {
  const sites = [record('sydney', { latlong: [-33.87, 151.21] }), record('none'), record('frankfurt', { latlong: [50.11, 8.68] }), record('newyork', { latlong: [40.71, -74.01] })];
  assert.deepEqual(labels(applyPickers(sites, [picker('geodistance')], from('192.0.2.1', { location: [48.85, 2.35] }))), ['frankfurt', 'newyork', 'sydney', 'none']);
  assert.deepEqual(labels(applyPickers(sites, [picker('geodistance')], from('192.0.2.1'))), labels(sites), 'no location: order kept');
});

test('weighted_shuffle puts each record first in proportion to its weight (default 50)', () => {
  const weighted = [record('heavy', { weight: 300 }), record('default'), record('light', { weight: 10 }), record('zero', { weight: 0 })];
  const firsts = new Map<string, number>();
  const rounds = 20_000;
  for (let i = 0; i < rounds; i++) {
    const first = labels(weightedShuffle(weighted))[0] ?? '';
    firsts.set(first, (firsts.get(first) ?? 0) + 1);
  }
  const share = (label: string) => (firsts.get(label) ?? 0) / rounds;
  // Expected 300/360, 50/360, 10/360, 0; four standard deviations of slack at 20,000 draws.
  assert.ok(Math.abs(share('heavy') - 300 / 360) < 0.011, `heavy ${share('heavy')}`);
  assert.ok(Math.abs(share('default') - 50 / 360) < 0.01, `default ${share('default')}`);
  assert.ok(Math.abs(share('light') - 10 / 360) < 0.005, `light ${share('light')}`);
  assert.equal(share('zero'), 0);
  assert.equal(weightedShuffle(weighted).length, 4, 'nothing is lost');
});

test('healthcheck drops records whose check fails; when all fail, strict gives nothing, otherwise everything', () => {
  const pool = [record('a'), record('b', {}, false), record('c')];
  const anyone = from('192.0.2.1');
  assert.deepEqual(labels(applyPickers(pool, [picker('healthcheck')], anyone)), ['a', 'c']);
  assert.deepEqual(labels(applyPickers(pool, [picker('is_healthy'), picker('first_n')], anyone)), ['a']);
  const down = [record('x', {}, false), record('y', {}, false)];
  assert.deepEqual(labels(applyPickers(down, [picker('healthcheck', { strict: true })], anyone)), []);
  assert.deepEqual(labels(applyPickers(down, [picker('healthcheck')], anyone)), ['x', 'y']);
});

test('region matches a subdivision by ISO 3166-2 code or English name, in any case', () => {
  const byRegion = [record('california', { regions: ['us-ca'] }), record('bavaria', { regions: ['Bavaria'] }), record('fallback', { default: true })];
  const chain = [picker('region'), picker('default')];
  assert.deepEqual(labels(applyPickers(byRegion, chain, from('192.0.2.1', { regions: ['US-CA', 'CALIFORNIA'] }))), ['california']);
  assert.deepEqual(labels(applyPickers(byRegion, chain, from('192.0.2.1', { regions: ['DE-BY', 'BAVARIA'] }))), ['bavaria']);
  assert.deepEqual(labels(applyPickers(byRegion, chain, from('192.0.2.1'))), ['fallback']);
});
