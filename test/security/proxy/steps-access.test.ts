// The access checks each on their own and together, through a real HTTP server running a policy's
// steps: whitelist (and the operator's global whitelist), blacklist, geo in both modes, methods.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { geoLookup, loadGeoData } from '../../../src/geo/geoip.ts';
import { policySteps } from '../../../src/security/proxy/steps/policy-steps.ts';
import { startStepServer, testDeps, testPolicy, type PolicyChanges } from './step-harness.ts';

let us: string;
let de: string;
let deV6: string;
let unknown: string;

before(async () => {
  // Addresses whose country the shipped data gives, checked here so a data update shows as such.
  const geo = geoLookup(await loadGeoData({}));
  [us, de, deV6, unknown] = ['8.8.8.8', '85.214.132.117', '2a01:4f8::1', '4000::1'];
  assert.equal(geo.lookup(us).country, 'US');
  assert.equal(geo.lookup(de).country, 'DE');
  assert.equal(geo.lookup(deV6).country, 'DE');
  assert.equal(geo.lookup(unknown).country, undefined);
});

/** Status seen by each client address under the policy. */
async function statuses(changes: PolicyChanges, clients: string[], options: { globalWhitelist?: string[]; method?: string } = {}) {
  const server = await startStepServer(testPolicy(changes), await testDeps({ settings: { globalWhitelist: options.globalWhitelist ?? [], publicHttpsPort: 443 } }));
  try {
    const out: Record<string, number> = {};
    for (const client of clients) out[client] = (await server.send(`${server.http}/`, { client, ...(options.method === undefined ? {} : { method: options.method }) })).status;
    return out;
  } finally {
    await server.close();
  }
}

/** The guards of a policy using nothing: the bot challenge's verify path alone. */
const guardsOfNothing = async () => policySteps(testPolicy(), await testDeps()).guards.length;

test('a policy using nothing compiles to no step but the bot challenge\'s verify path, which passes every other request', async () => {
  const steps = policySteps(testPolicy(), await testDeps());
  assert.deepEqual([steps.guards.length, steps.rewrites.length], [1, 0]);
  const server = await startStepServer(testPolicy(), await testDeps());
  try {
    assert.deepEqual(await Promise.all(['/', '/.edgeplane', '/.edgeplane/challengex'].map(async (path) => (await server.send(`${server.http}${path}`)).status)), [200, 200, 200]);
  } finally {
    await server.close();
  }
});

test('blacklist: 403 for listed addresses and networks, IPv6 and mapped IPv4 alike', async () => {
  const server = await startStepServer(testPolicy({ blacklist: ['203.0.113.0/24', '2001:db8::/48', '198.51.100.7'] }), await testDeps());
  try {
    for (const client of ['203.0.113.1', '::ffff:203.0.113.200', '2001:db8:0:ffff::1', '198.51.100.7']) {
      const reply = await server.send(`${server.http}/`, { client });
      assert.equal(reply.status, 403, client);
      assert.equal(reply.body, 'Forbidden\n');
    }
    for (const client of ['203.0.114.1', '2001:db8:1::1', '198.51.100.8']) assert.equal((await server.send(`${server.http}/`, { client })).status, 200, client);
    // The socket's own address, unlisted, passes.
    assert.equal((await server.send(`${server.http}/`)).status, 200);
  } finally {
    await server.close();
  }
});

test('whitelist passes what the blacklist, geo and methods would refuse', async () => {
  const changes: PolicyChanges = {
    whitelist: ['203.0.113.5', '8.8.8.0/24'],
    blacklist: ['203.0.113.0/24'],
    settings: { service_geoip_mode: 1, service_geoip_list: 'US', service_methods: 'GET' },
  };
  assert.deepEqual(await statuses(changes, ['203.0.113.5', '203.0.113.6', us, '8.8.4.4']), { '203.0.113.5': 200, '203.0.113.6': 403, [us]: 200, '8.8.4.4': 403 });
  assert.deepEqual(await statuses(changes, ['203.0.113.5', de], { method: 'POST' }), { '203.0.113.5': 200, [de]: 405 });
});

test("the operator's global whitelist passes only resources with service_global_whitelist 1", async () => {
  const globalWhitelist = ['192.0.2.0/24', '2001:db8:aa::/48'];
  const blacklist = ['192.0.2.0/24', '2001:db8::/32'];
  assert.deepEqual(await statuses({ blacklist, settings: { service_global_whitelist: 1 } }, ['192.0.2.9', '2001:db8:aa::1', '2001:db8:bb::1'], { globalWhitelist }), {
    '192.0.2.9': 200,
    '2001:db8:aa::1': 200,
    '2001:db8:bb::1': 403,
  });
  assert.deepEqual(await statuses({ blacklist, settings: { service_global_whitelist: 0 } }, ['192.0.2.9'], { globalWhitelist }), { '192.0.2.9': 403 });
});

test('geo mode 1: the listed countries are refused; unknown countries and private addresses pass', async () => {
  assert.deepEqual(await statuses({ settings: { service_geoip_mode: 1, service_geoip_list: 'DE,FR' } }, [us, de, deV6, `::ffff:${de}`, unknown, '10.1.2.3', '127.0.0.1', 'fd00::1']), {
    [us]: 200,
    [de]: 403,
    [deV6]: 403,
    [`::ffff:${de}`]: 403,
    [unknown]: 200,
    '10.1.2.3': 200,
    '127.0.0.1': 200,
    'fd00::1': 200,
  });
});

test('geo mode 2: only the listed countries pass; unknown countries are refused, private addresses pass', async () => {
  assert.deepEqual(await statuses({ settings: { service_geoip_mode: 2, service_geoip_list: 'DE' } }, [us, de, deV6, unknown, '192.168.1.1', '::1']), {
    [us]: 403,
    [de]: 200,
    [deV6]: 200,
    [unknown]: 403,
    '192.168.1.1': 200,
    '::1': 200,
  });
});

test('geo off, or mode 1 with an empty list, refuses nobody', async () => {
  assert.deepEqual(await statuses({ settings: { service_geoip_mode: 0, service_geoip_list: 'US' } }, [us]), { [us]: 200 });
  assert.equal(policySteps(testPolicy({ settings: { service_geoip_mode: 1, service_geoip_list: '' } }), await testDeps()).guards.length, await guardsOfNothing());
});

test('methods: a list of names restricts, 405 with Allow; GET brings HEAD', async () => {
  const server = await startStepServer(testPolicy({ settings: { service_methods: 'get, post' } }), await testDeps());
  try {
    for (const method of ['GET', 'HEAD', 'POST']) assert.equal((await server.send(`${server.http}/`, { method })).status, 200, method);
    for (const method of ['PUT', 'DELETE', 'OPTIONS', 'PATCH']) {
      const reply = await server.send(`${server.http}/`, { method });
      assert.equal(reply.status, 405, method);
      assert.equal(reply.headers.allow, 'GET, POST, HEAD');
    }
  } finally {
    await server.close();
  }
});

test('methods: a value naming no method restricts nothing', async () => {
  for (const service_methods of ['', '0', '1', '42', 'none', ' , ']) {
    assert.equal(policySteps(testPolicy({ settings: { service_methods } }), await testDeps()).guards.length, await guardsOfNothing(), service_methods);
  }
});
