// A worker thread handed the process's GeoIP data, as the DNS and proxy workers are: it says whether
// what it got is shared memory, and answers lookups from it.
import { parentPort, workerData } from 'node:worker_threads';
import { geoLookup, type GeoData } from '../../src/geo/geoip.ts';

const { data, addresses } = workerData as { data: GeoData; addresses: string[] };
const arrays = [data.countries, data.custom, data.asns.v4.starts, data.asns.v4.ends, data.asns.v4.asns, data.asns.v6.starts, data.asns.v6.ends, data.asns.v6.asns];
const geo = geoLookup(data);
parentPort?.postMessage({
  shared: arrays.map((a) => a?.buffer instanceof SharedArrayBuffer),
  answers: addresses.map((address) => geo.lookup(address)),
});
