// Zones served from the process's shared zone images (zone-image.ts), as clients see them: a zone
// loaded at start is one image the DNS threads share, with each thread's changes on top. The same
// random zone must answer the same questions identically whether served from the per-thread objects
// a zone built at run time gets, or from the image after a restart with two DNS threads; changes
// after the load must show, in answers and transfers; and while changes are applied no answer mixes
// two versions or goes back behind a change the API already confirmed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildQuery, decode, tcpExchange, udpExchange, type Reply } from '../support/dns-client.ts';
import { bearer, call, login } from '../support/http.ts';
import { seededRandom } from '../support/prng.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const zone = 'img.test';

/** A reply as compared across servers: everything but signatures' own octets (made afresh each time). */
function comparable(reply: Reply): unknown {
  const section = (records: Reply['answers']) =>
    (records ?? []).map((r) => (r.type === 'RRSIG' ? { name: r.name, type: r.type, covered: r.data.typeCovered } : { name: r.name, type: r.type, ttl: 'ttl' in r ? r.ttl : undefined, data: 'data' in r ? r.data : undefined }));
  return { rcode: reply.rcode, flags: reply.flags, answers: section(reply.answers), authorities: section(reply.authorities), additionals: section(reply.additionals) };
}

/** The records of every AXFR message, as `name type data`. */
function transferred(messages: Buffer[]): string[] {
  return messages.flatMap((m) => (decode(m).answers ?? []).map((r) => `${r.name} ${r.type} ${JSON.stringify('data' in r ? r.data : '')}`));
}

describe('zones served from a shared image', () => {
  let first: Service;
  let service: Service | undefined;
  let api: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
  const random = seededRandom(15);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const label = () => Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(['a', 'b', 'c', 'm', 'z', '0'])).join('');
  const owners = new Set<string>();
  const questions: [string, string][] = [];

  const put = async (name: string, type: string, content: unknown[][], extra: Record<string, unknown> = {}) => {
    const response = await api('PUT', `/dns/v2/zones/${zone}/${name}/${type}`, { ttl: 300, resource_records: content.map((c) => ({ content: c })), ...extra });
    assert.equal(response.status, 200, response.text);
    owners.add(name);
  };
  const ask = async (port: number, name: string, type: string, dnssecOk = false) => decode(await udpExchange(port, buildQuery(name, type, { id: 7, udpSize: 1232, dnssecOk })));

  before(async () => {
    first = await startService({ engine: 'sqlite', env: { EDGEPLANE_DNS_TRANSFER_ALLOW: '127.0.0.1' } });
    const auth = bearer((await login(first.url, adminEmail, adminPassword)).access);
    api = (method, p, body) => call(first.url, method, p, { auth, body });
    assert.equal((await api('POST', '/dns/v2/zones', { name: zone })).status, 200);
    for (let i = 0; i < 50; i++) {
      const name = [...Array.from({ length: 1 + Math.floor(random() * 3) }, label), zone].join('.');
      const kind = random();
      if (kind < 0.15) await put(`*.${name}`, 'TXT', [['wildcard']]);
      else if (kind < 0.25) await put(name, 'CNAME', [[`www.${zone}.`]]);
      else if (kind < 0.35) await put(name, 'MX', [[10, `mail.${zone}.`]]);
      else await put(name, 'A', [['192.0.2.1'], ['192.0.2.2']]);
    }
    await put(`www.${zone}`, 'A', [['192.0.2.80']]);
    await put(`www.${zone}`, 'AAAA', [['2001:db8::80']]);
    await put(`mail.${zone}`, 'A', [['192.0.2.25']]);
    await put(`cut.${zone}`, 'NS', [[`ns.cut.${zone}.`]]);
    await put(`ns.cut.${zone}`, 'A', [['192.0.2.53']]);
    await put(`picked.${zone}`, 'A', [['192.0.2.7'], ['192.0.2.8']], { pickers: [{ type: 'first_n', limit: 1 }] });
    await put(`ver.${zone}`, 'A', [['10.0.0.1'], ['10.0.0.2'], ['10.0.0.3']]);
    assert.equal((await api('PATCH', `/dns/v2/zones/${zone}/dnssec`, { enabled: true })).status, 200);
    const names = [...owners, zone, `nx.${zone}`, `deep.nx.${zone}`, `x.y.cut.${zone}`];
    for (const owner of [...owners]) names.push(`q.${owner.replace(/^\*\./, '')}`, owner.split('.').slice(1).join('.'));
    for (const name of names) for (const type of ['A', 'AAAA', 'TXT', 'MX', 'NS', 'DS', 'ANY']) questions.push([name, type]);
  });
  after(async () => {
    await service?.stop();
    await first.dispose();
  });

  /** The answers of the first service (the zone built at run time) to every question, with and without DO. */
  const answersOf = async (port: number) => {
    const out: unknown[] = [];
    for (const [name, type] of questions) out.push(comparable(await ask(port, name, type)), comparable(await ask(port, name, type, true)));
    return out;
  };

  test('a zone loaded from an image answers every question as the zone built at run time did, in every thread', async () => {
    const expected = await answersOf(first.dnsPort);
    const expectedTransfer = transferred(await tcpExchange(first.dnsPort, [buildQuery(zone, 'AXFR')])).sort();
    await first.stop();
    service = await first.sibling({ EDGEPLANE_DNS_WORKERS: '2', EDGEPLANE_DNS_TRANSFER_ALLOW: '127.0.0.1' });
    assert.match(service.output(), /with 2 worker\(s\)/);
    // Each question from a new socket: the kernel spreads them over both threads; twice, to reach each.
    for (let round = 0; round < 2; round++) assert.deepEqual(await answersOf(service.dnsPort), expected, `round ${String(round)}`);
    assert.deepEqual(transferred(await tcpExchange(service.dnsPort, [buildQuery(zone, 'AXFR')])).sort(), expectedTransfer);
  });

  test('changes after the load: replaced, removed (with the empty non-terminals above), added; transfers merge them', async () => {
    assert.ok(service !== undefined);
    const port = service.dnsPort;
    const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    api = (method, p, body) => call(service!.url, method, p, { auth, body });
    await put(`deep.a.b.${zone}`, 'A', [['192.0.2.9']]);
    await put(`www.${zone}`, 'A', [['192.0.2.81']]);
    assert.equal((await api('DELETE', `/dns/v2/zones/${zone}/www.${zone}/AAAA`)).status, 200);
    for (let i = 0; i < 8; i++) {
      assert.deepEqual((await ask(port, `www.${zone}`, 'A')).answers?.map((a) => ('data' in a ? a.data : undefined)), ['192.0.2.81']);
      const aaaa = await ask(port, `www.${zone}`, 'AAAA');
      assert.equal(aaaa.rcode, 'NOERROR');
      assert.deepEqual(aaaa.answers, []);
      assert.equal((await ask(port, `a.b.${zone}`, 'A')).rcode, 'NOERROR');
    }
    assert.equal((await api('DELETE', `/dns/v2/zones/${zone}/deep.a.b.${zone}/A`)).status, 200);
    const gone = owners.has(`a.b.${zone}`) || owners.has(`b.${zone}`) || [...owners].some((o) => o.endsWith(`.a.b.${zone}`) && o !== `deep.a.b.${zone}`);
    for (let i = 0; i < 8; i++) assert.equal((await ask(port, `a.b.${zone}`, 'A')).rcode, gone ? 'NOERROR' : 'NXDOMAIN');
    const records = transferred(await tcpExchange(port, [buildQuery(zone, 'AXFR')]));
    assert.equal(records.filter((r) => r.startsWith(`www.${zone} A `)).join(), `www.${zone} A "192.0.2.81"`);
    assert.ok(!records.some((r) => r.startsWith(`www.${zone} AAAA `) || r.startsWith(`deep.a.b.${zone} `)));
    // Every record once: SOA first and last, nothing else twice.
    assert.equal(new Set(records.slice(1, -1)).size, records.length - 2);
    assert.ok(records[0]?.startsWith(`${zone} SOA `) && records.at(-1) === records[0]);
  });

  test('while changes are applied, no answer mixes two versions or goes back behind a confirmed one', async () => {
    assert.ok(service !== undefined);
    const port = service.dnsPort;
    const versions = 30;
    let confirmed = 0;
    let writing = true;
    const versionOf = (addresses: string[]) => {
      const seen = new Set(addresses.map((a) => Number(a.split('.')[1])));
      assert.equal(seen.size, 1, `one answer mixes versions: ${addresses.join(' ')}`);
      return [...seen][0] ?? -1;
    };
    const writer = (async () => {
      for (let v = 1; v <= versions; v++) {
        await put(`ver.${zone}`, 'A', [[`10.${String(v)}.0.1`], [`10.${String(v)}.0.2`], [`10.${String(v)}.0.3`]]);
        confirmed = v;
      }
      writing = false;
    })();
    let answers = 0;
    let transfers = 0;
    const reader = async () => {
      while (writing) {
        const floor = confirmed;
        const reply = await ask(port, `ver.${zone}`, 'A', random() < 0.3);
        const addresses = (reply.answers ?? []).flatMap((a) => (a.type === 'A' ? [a.data] : []));
        assert.equal(addresses.length, 3);
        assert.ok(versionOf(addresses) >= floor, `an answer behind version ${String(floor)}: ${addresses.join(' ')}`);
        answers++;
      }
    };
    const transferrer = async () => {
      while (writing) {
        const floor = confirmed;
        const records = transferred(await tcpExchange(port, [buildQuery(zone, 'AXFR')])).filter((r) => r.startsWith(`ver.${zone} A `));
        assert.equal(records.length, 3);
        assert.ok(versionOf(records.map((r) => String(JSON.parse(r.split(' ')[2] ?? '""')))) >= floor);
        transfers++;
      }
    };
    await Promise.all([writer, reader(), reader(), reader(), transferrer()]);
    assert.ok(answers > versions, `only ${String(answers)} answers`);
    assert.ok(transfers > 0);
  });
});
