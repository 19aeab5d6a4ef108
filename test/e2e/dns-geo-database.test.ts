// An operator's own GeoIP database (EDGEPLANE_GEOIP_DB, a city database) through the real server:
// the region selector matches its subdivisions and geodistance sorts by its locations, for requesters
// given by EDNS Client Subnet. The database is written here (test/geo/mmdb-writer.ts). Two DNS threads:
// the worker answers from the data the process loaded and shared with it, as the main thread does.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { addressesIn, ask } from '../support/dns-client.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';
import { writeMmdb } from '../geo/mmdb-writer.ts';

const cities = {
  '8.8.8.0/24': { country: { iso_code: 'US' }, location: { latitude: 37.4, longitude: -122.1 }, subdivisions: [{ iso_code: 'CA', names: { en: 'California' } }] },
  '193.99.144.0/24': { country: { iso_code: 'DE' }, location: { latitude: 48.1, longitude: 11.6 }, subdivisions: [{ iso_code: 'BY', names: { en: 'Bavaria' } }] },
};

describe('a city GeoIP database of the operator', () => {
  let dir: string;
  let service: Service;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgeplane-city-'));
    const database = join(dir, 'city.mmdb');
    await writeFile(database, writeMmdb(cities, { recordSize: 28, ipVersion: 6 }));
    service = await startService({ engine: 'sqlite', env: { EDGEPLANE_GEOIP_DB: database, EDGEPLANE_DNS_WORKERS: '2' } });
    const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    const api = (method: string, path: string, body?: unknown) => call(service.url, method, path, { auth, body });
    assert.equal((await api('POST', '/dns/v2/zones', { name: 'geo.test' })).status, 200);
    const put = async (name: string, body: unknown) => {
      const response = await api('PUT', `/dns/v2/zones/geo.test/${name}.geo.test/A`, body);
      assert.equal(response.status, 200, response.text);
    };
    await put('region', {
      ttl: 60,
      pickers: [{ type: 'region' }, { type: 'default' }],
      resource_records: [
        { content: ['192.0.2.1'], meta: { regions: ['us-ca'] } },
        { content: ['192.0.2.2'], meta: { regions: ['Bavaria'] } },
        { content: ['192.0.2.3'], meta: { default: true } },
      ],
    });
    await put('near', {
      ttl: 60,
      pickers: [{ type: 'geodistance' }, { type: 'first_n', limit: 1 }],
      resource_records: [
        { content: ['198.51.100.1'], meta: { latlong: [37.77, -122.42] } },
        { content: ['198.51.100.2'], meta: { latlong: [52.52, 13.4] } },
      ],
    });
  });
  after(async () => {
    await service.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  // Each query from a new source port: the kernel spreads them over both threads, whose answers must agree.
  const from = async (name: string, subnet: string) => {
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(addressesIn((await ask(service.dnsPort, name, 'A', { subnet: { address: subnet, prefix: 24 } })).packet));
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
    return answers[0];
  };

  test('region selects by ISO 3166-2 code or subdivision name; elsewhere the default answers', async () => {
    assert.deepEqual(await from('region.geo.test', '8.8.8.0'), ['192.0.2.1']);
    assert.deepEqual(await from('region.geo.test', '193.99.144.0'), ['192.0.2.2']);
    assert.deepEqual(await from('region.geo.test', '133.242.0.0'), ['192.0.2.3']);
  });

  test('geodistance puts the nearest record first', async () => {
    assert.deepEqual(await from('near.geo.test', '8.8.8.0'), ['198.51.100.1']);
    assert.deepEqual(await from('near.geo.test', '193.99.144.0'), ['198.51.100.2']);
  });
});
