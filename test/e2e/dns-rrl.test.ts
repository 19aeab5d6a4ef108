// Response rate limiting (EDGEPLANE_DNS_RRL) through the real server: a burst of identical questions
// from one client network gets the allowed answers, then every second reply truncated and the rest
// dropped; random missing names share one budget; another network has its own; TCP is never limited.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildQuery, decode, tcpExchange, udpBurst } from '../support/dns-client.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

interface Tally {
  answered: number;
  truncated: number;
}

/** Sends every message from one socket at once; counts full and truncated replies within 1 s. */
async function burst(port: number, messages: Buffer[], family: 4 | 6 = 4): Promise<Tally> {
  const replies = await udpBurst(port, messages, { family, timeoutMs: 1000 });
  const truncated = replies.filter((reply) => ((decode(reply).flags ?? 0) & 0x200) !== 0).length;
  return { answered: replies.length - truncated, truncated };
}

const perSecond = 5;

describe('response rate limiting', () => {
  let service: Service;

  before(async () => {
    service = await startService({ engine: 'sqlite', env: { EDGEPLANE_DNS_RRL: String(perSecond), EDGEPLANE_DNS_RRL_SLIP: '2', EDGEPLANE_DNS_LISTEN: '[::]:0' } });
    const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    assert.equal((await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name: 'rrl.test' } })).status, 200);
    const body = { ttl: 60, resource_records: [{ content: ['192.0.2.1'] }] };
    assert.equal((await call(service.url, 'PUT', '/dns/v2/zones/rrl.test/www.rrl.test/A', { auth, body })).status, 200);
  });
  after(() => service.dispose());

  test('identical questions: the allowed answers, then every second reply truncated, the rest dropped', async () => {
    const tally = await burst(service.dnsPort, Array.from({ length: 40 }, (_, id) => buildQuery('www.rrl.test', 'A', { id })));
    // The bucket starts full and refills at 5 a second: a burst that takes a few hundred ms at most gets a few more.
    assert.ok(tally.answered >= perSecond && tally.answered <= perSecond + 4, JSON.stringify(tally));
    const limited = 40 - tally.answered;
    assert.ok(Math.abs(tally.truncated - limited / 2) <= 2, JSON.stringify(tally));
  });

  test('random missing names share one budget; another network has its own; TCP is never limited', async () => {
    const random = Array.from({ length: 30 }, (_, id) => buildQuery(`n${String(id)}-${String(Math.random()).slice(2)}.rrl.test`, 'A', { id }));
    const missing = await burst(service.dnsPort, random);
    assert.ok(missing.answered <= perSecond + 4, JSON.stringify(missing));
    const other = await burst(service.dnsPort, Array.from({ length: perSecond }, (_, id) => buildQuery('www.rrl.test', 'A', { id })), 6);
    assert.equal(other.answered, perSecond, 'IPv6 ::1 is another network');
    const overTcp = await tcpExchange(service.dnsPort, Array.from({ length: 20 }, (_, id) => buildQuery('www.rrl.test', 'A', { id })));
    assert.equal(overTcp.filter((reply) => (decode(reply).answers ?? []).length === 1).length, 20);
  });

  test('/metrics counts what was slipped and dropped', async () => {
    const metrics = (await call(service.url, 'GET', '/metrics')).text;
    assert.match(metrics, /^edgeplane_dns_rate_limited_total\{action="slipped"\} [1-9]\d*$/m);
    assert.match(metrics, /^edgeplane_dns_rate_limited_total\{action="dropped"\} [1-9]\d*$/m);
  });
});
