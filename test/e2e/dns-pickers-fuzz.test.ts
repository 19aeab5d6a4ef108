// Random picker chains and record meta through the API, then random requesters through DNS: seeded
// RRsets whose pickers (every type, with and without `strict` and `limit`) and records' meta (CIDRs
// of both families and every length, AS numbers, countries, continents, regions, coordinates,
// weights, default and fallback flags, records disabled) are drawn at random, some of them invalid.
// Each write must be a 200 or a 400 in the error model. Each RRset stored is then asked for from
// requesters drawn at random (EDNS Client Subnet of either family and any source prefix, or none):
// every answer must be NOERROR, hold only the RRset's enabled records, no more than its chain's
// tightest limit lets through, and come back at all.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ask } from '../support/dns-client.ts';
import { bearer, call, login } from '../support/http.ts';
import { pick, seededRandom } from '../support/prng.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const zone = 'pickers-fuzz.example';
const pickerTypes = ['geodns', 'asn', 'country', 'continent', 'region', 'ip', 'default', 'geodistance', 'weighted_shuffle', 'first_n', 'healthcheck', 'is_healthy'];
const countries = ['US', 'DE', 'JP', 'BR', 'ZA', 'AU', 'FR', 'us'];
const continents = ['eu', 'na', 'as', 'af', 'oc', 'sa', 'an', 'EU'];
const regions = ['US-CA', 'California', 'Bavaria', 'DE-BY'];
/** What a field of meta or a picker may hold instead, now and then: each must make the write a 400. */
const invalid = ['XX', '', 'x'.repeat(65), -1, 4294967296, 1_000_001, 'yes', null, [], {}];

type Random = () => number;
const int = (random: Random, n: number): number => Math.floor(random() * n);
const some = <T>(random: Random, make: () => T, most: number): T[] => Array.from({ length: int(random, most + 1) }, make);

/** An address of either family, the first octets from a few networks the GeoIP data places, the rest random. */
function address(random: Random, v6: boolean): string {
  if (v6) return `${pick(random, ['2001:4860', '2a00:1450', '2001:db8', '2400:cb00', 'fe80:0'])}:${Array.from({ length: 6 }, () => int(random, 65536).toString(16)).join(':')}`;
  return [pick(random, [8, 193, 133, 200, 41, 1, 192, 10, 127, 0, 255]), int(random, 256), int(random, 256), int(random, 256)].join('.');
}

function meta(random: Random): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (random() < 0.03) out[pick(random, ['ip', 'asn', 'countries', 'continents', 'regions', 'latlong', 'weight', 'default', 'fallback'])] = pick(random, invalid);
  if (random() < 0.4) out['ip'] = some(random, () => (random() < 0.5 ? `${address(random, false)}/${String(int(random, 33))}` : `${address(random, true)}/${String(int(random, 129))}`), 3);
  if (random() < 0.3) out['asn'] = some(random, () => pick(random, [15169, 3320, 2497, 0, 4294967295]), 3);
  if (random() < 0.4) out['countries'] = some(random, () => pick(random, countries), 3);
  if (random() < 0.3) out['continents'] = some(random, () => pick(random, continents), 2);
  if (random() < 0.2) out['regions'] = some(random, () => pick(random, regions), 2);
  if (random() < 0.3) out['latlong'] = [random() * 180 - 90, random() * 360 - 180];
  if (random() < 0.4) out['weight'] = pick(random, [0, 1, 50, 100, 1_000_000, 0.5]);
  if (random() < 0.2) out['default'] = random() < 0.5;
  if (random() < 0.2) out['fallback'] = random() < 0.5;
  return out;
}

function picker(random: Random): Record<string, unknown> {
  const out: Record<string, unknown> = { type: pick(random, pickerTypes) };
  if (random() < 0.3) out['strict'] = random() < 0.5;
  if (random() < 0.4) out['limit'] = pick(random, [0, 1, 2, 3, 5, 100]);
  if (random() < 0.03) out[pick(random, ['type', 'strict', 'limit'])] = pick(random, invalid);
  return out;
}

const selectors = new Set(['asn', 'country', 'continent', 'region', 'ip', 'default']);

/**
 * The most records a chain lets through: the tightest `limit` of the pickers sure to run (a first_n
 * without one keeps 1); undefined: no bound. A selector after the first may be passed over (an
 * earlier one matched), and its limit with it, as the provider's chain bypasses it.
 */
function tightest(pickers: { type: string; limit?: number }[]): number | undefined {
  let bound: number | undefined;
  let selectorSeen = false;
  for (const p of pickers) {
    const runs = !selectors.has(p.type) || !selectorSeen;
    if (selectors.has(p.type)) selectorSeen = true;
    const limit = p.limit !== undefined && p.limit > 0 ? p.limit : p.type === 'first_n' ? 1 : undefined;
    if (runs && limit !== undefined) bound = Math.min(bound ?? limit, limit);
  }
  return bound;
}

interface Stored {
  name: string;
  pickers: { type: string; limit?: number }[];
  resource_records: { content: [string]; enabled: boolean }[];
}

describe('random picker chains and requesters', () => {
  let service: Service;
  let auth: string;
  before(async () => {
    service = await startService({ engine: 'sqlite' });
    auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    assert.equal((await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name: zone } })).status, 200);
  });
  after(() => service.dispose());

  test('every write a 200 or a 400; every answer NOERROR, of enabled records only, within the chain’s limits', { timeout: 120_000 }, async () => {
    const random = seededRandom(20261129);
    const stored: Stored[] = [];
    for (let i = 0; i < 60; i++) {
      const name = `r${String(i)}.${zone}`;
      const records = Array.from({ length: 1 + int(random, 8) }, (_, r) => ({ content: [`192.0.2.${String(r + 1)}`], enabled: random() < 0.85, meta: meta(random) }));
      const body = { ttl: 60, pickers: some(random, () => picker(random), 4), resource_records: records };
      const written = await call(service.url, 'PUT', `/dns/v2/zones/${zone}/${name}/A`, { auth, body });
      assert.ok(written.status === 200 || (written.status === 400 && typeof written.body?.error === 'string'), `${String(written.status)} ${written.text}\n${JSON.stringify(body)}`);
      if (written.status !== 200) continue;
      const read = await call<Stored>(service.url, 'GET', `/dns/v2/zones/${zone}/${name}/A`, { auth });
      assert.equal(read.status, 200, read.text);
      stored.push(read.body);
    }
    assert.ok(stored.length > 15, `${String(stored.length)} of 60 RRsets stored: the draws should be valid often enough to test the answers`);
    for (const rrset of stored) {
      const enabled = new Set(rrset.resource_records.filter((r) => r.enabled).map((r) => r.content[0]));
      const bound = tightest(rrset.pickers);
      for (let q = 0; q < 25; q++) {
        const v6 = random() < 0.3;
        const subnet = random() < 0.8 ? { address: address(random, v6), prefix: v6 ? int(random, 129) : int(random, 33) } : undefined;
        const { packet: reply } = await ask(service.dnsPort, rrset.name, 'A', subnet === undefined ? {} : { subnet });
        const asked = `${rrset.name} from ${JSON.stringify(subnet)} with ${JSON.stringify(rrset)}`;
        // A name whose only RRset has every record disabled holds nothing: it is not served (NXDOMAIN, as the export leaves it out).
        assert.equal(reply.rcode, enabled.size === 0 ? 'NXDOMAIN' : 'NOERROR', asked);
        const answered = (reply.answers ?? []).map((a) => String((a as { data: unknown }).data));
        for (const a of answered) assert.ok(enabled.has(a), `${a} is not an enabled record: ${asked}`);
        assert.equal(new Set(answered).size, answered.length, `a record twice: ${asked}`);
        if (bound !== undefined) assert.ok(answered.length <= bound, `${String(answered.length)} records past the limit ${String(bound)}: ${asked}`);
      }
    }
  });
});
