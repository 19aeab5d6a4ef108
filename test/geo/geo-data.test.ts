// The GeoIP data a process loads once and hands to its DNS and proxy threads: it must reach them as
// shared memory (the same bytes), not as a copy per thread, and answer there as it does here.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { geoLookup, loadGeoData, type GeoData } from '../../src/geo/geoip.ts';
import { writeMmdb } from './mmdb-writer.ts';

const arraysOf = (data: GeoData) => [data.countries, data.custom, ...Object.values(data.asns).flatMap((t) => [t.starts, t.ends, t.asns])];

test('the shipped and custom data are loaded into shared memory, the shipped once per process', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'edgeplane-geo-data-'));
  try {
    const path = join(dir, 'custom.mmdb');
    await writeFile(path, writeMmdb({ '8.8.8.0/24': { country: { iso_code: 'DE' } } }, { recordSize: 24, ipVersion: 4 }));
    const data = await loadGeoData({ mmdbPath: path });
    for (const array of arraysOf(data)) assert.ok(array?.buffer instanceof SharedArrayBuffer);
    const again = await loadGeoData({});
    assert.equal(again.countries, data.countries);
    assert.equal(again.asns, data.asns);
    assert.equal(again.custom, undefined);
    // 400k IPv4 and 100k IPv6 ranges at least (ip-location-db's), each with its ASN.
    assert.ok(data.asns.v4.asns.length > 400_000 && data.asns.v6.asns.length > 100_000);
    assert.equal(data.asns.v4.starts.length, data.asns.v4.asns.length);
    assert.equal(data.asns.v6.ends.length, data.asns.v6.asns.length * 4);

    // A worker thread gets the same memory (a copy would be an ordinary ArrayBuffer) and the same answers.
    const addresses = ['8.8.8.8', '193.0.6.139', '2001:4860:4860::8888', '1.1.1.1', '10.0.0.1'];
    const worker = new Worker(new URL('./lookup-worker.ts', import.meta.url), { workerData: { data, addresses } });
    const [reply] = (await once(worker, 'message')) as [{ shared: boolean[]; answers: unknown[] }];
    await worker.terminate();
    assert.deepEqual(reply.shared, arraysOf(data).map(() => true));
    const here = geoLookup(data);
    assert.deepEqual(reply.answers, addresses.map((a) => here.lookup(a)));
    assert.equal(here.lookup('8.8.8.8').country, 'DE');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
