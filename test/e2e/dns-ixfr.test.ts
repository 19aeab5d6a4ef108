// Incremental zone transfers (RFC 1995) from the zone journal, on both stores: IXFR answers decoded
// and checked record by record after one change and after several of every kind (RRset create,
// replace, delete, TTL change, SOA edit, DNSSEC on, zone-file import, disable and enable), the SOA
// alone for a client up to date (and over UDP), the whole zone for one the journal no longer
// reaches; Knot DNS as a secondary follows changes by IXFR; kdig's IXFR=serial. The zone has 10,000 records on
// SQLite (2,000 on PostgreSQL, where importing 10,000 alone takes some 15 s), so the octets an
// incremental transfer moves for a one-record change are measured against a full one.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import packet from 'dns-packet';
import { addressesIn, ask, buildQuery, decode, tcpExchange, udpExchange, type Reply } from '../support/dns-client.ts';
import { engines } from '../support/engines.ts';
import { bearer, call, login } from '../support/http.ts';
import { freePort } from '../support/free-port.ts';
import { onPath, startKnotSecondary, type Knot } from '../support/knot.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const run = promisify(execFile);
const knotMissing = onPath('knotd') === undefined || onPath('kdig') === undefined ? 'knotd and kdig are not installed (Debian: knot, knot-dnsutils)' : false;
const zone = 'ixfr.test';
/** Journal bounds for the test: few versions, and fewer octets than the 10,000-record import. */
const journalVersions = 6;

type Answer = packet.Answer;

/** An IXFR query carrying `serial` in an SOA in its authority section (RFC 1995 §3). */
function ixfrQuery(serial: number, owner = zone): Buffer {
  return packet.encode({
    type: 'query',
    id: Math.floor(Math.random() * 65535),
    flags: 0,
    questions: [{ name: zone, type: 'IXFR', class: 'IN' }],
    authorities: [{ name: owner, type: 'SOA', ttl: 0, data: { mname: 'ns.invalid', rname: 'x.invalid', serial, refresh: 0, retry: 0, expire: 0, minimum: 0 } }],
  });
}

/** A transfer over TCP: every message until the answer ends (RFC 1995 §2), with the octets moved. */
function transfer(port: number, query: Buffer, localAddress = '127.0.0.1'): Promise<{ messages: Reply[]; answers: Answer[]; octets: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    const messages: Reply[] = [];
    const answers: Answer[] = [];
    let octets = 0;
    let pending = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`transfer unfinished after ${String(messages.length)} messages`));
    }, 10_000);
    const finish = () => {
      clearTimeout(timer);
      socket.end();
      resolve({ messages, answers, octets });
    };
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      octets += chunk.length;
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const message = decode(pending.subarray(2, 2 + pending.readUInt16BE(0)));
        pending = pending.subarray(2 + pending.readUInt16BE(0));
        messages.push(message);
        answers.push(...(message.answers ?? []));
        const first = answers[0];
        const last = answers.at(-1);
        const ended =
          message.rcode !== 'NOERROR' ||
          (answers.length === 1 && messages.length === 1) ||
          (answers.length > 1 && first?.type === 'SOA' && last?.type === 'SOA' && last.data.serial === first.data.serial);
        if (ended) return finish();
      }
    });
    socket.on('connect', () => socket.write(Buffer.concat([Buffer.from([query.length >> 8, query.length & 255]), query])));
  });
}

/** A record as text, for comparing sets: owner, TTL, type, data. */
function text(a: Answer): string {
  if (a.type === 'OPT') return 'OPT';
  const data = a.type === 'MX' ? `${String(a.data.preference)} ${a.data.exchange}` : a.type === 'SOA' ? String(a.data.serial) : typeof a.data === 'string' ? a.data : JSON.stringify(a.data);
  return `${a.name} ${String(a.ttl ?? 0)} ${a.type} ${data}`;
}

interface Difference {
  from: number;
  to: number;
  removed: string[];
  added: string[];
}

/**
 * An incremental answer read as RFC 1995 §4 has it: the current SOA, then for each version the
 * old SOA, the records removed, the new SOA, the records added, then the current SOA again.
 */
function differences(answers: Answer[]): { serial: number; steps: Difference[] } {
  const first = answers[0];
  assert.equal(first?.type, 'SOA');
  const serial = first.data.serial ?? 0;
  const body = answers.slice(1, -1);
  assert.equal(answers.at(-1)?.type, 'SOA');
  const steps: Difference[] = [];
  let step: Difference | undefined;
  let adding = false;
  for (const a of body) {
    if (a.type === 'SOA') {
      // The SOA a version leaves opens its removals; the SOA it reaches, its additions.
      if (step === undefined || adding) {
        step = { from: a.data.serial ?? 0, to: 0, removed: [], added: [] };
        steps.push(step);
        adding = false;
      } else {
        step.to = a.data.serial ?? 0;
        adding = true;
      }
      continue;
    }
    assert.ok(step !== undefined, 'a record before any SOA');
    (adding ? step.added : step.removed).push(text(a));
  }
  for (const s of steps) {
    s.removed.sort();
    s.added.sort();
  }
  return { serial, steps };
}

for (const engine of engines()) {
  describe(`incremental zone transfers (${engine})`, { skip: knotMissing }, () => {
    const hosts = engine === 'sqlite' ? 10_000 : 2_000;
    let service: Service;
    let secondary: Knot | undefined;
    let api: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
    /** Serials: before the import, after it (where the journal starts), after the first change. */
    let created = 0;
    let imported = 0;
    let changed = 0;

    const serial = async (port = service.dnsPort) => {
      const soa = (await ask(port, zone, 'SOA')).packet.answers?.find((a) => a.type === 'SOA');
      return soa?.type === 'SOA' ? (soa.data.serial ?? 0) : 0;
    };
    /** Polls until `check` passes, for up to 10 s. */
    const eventually = async (what: string, check: () => Promise<boolean>) => {
      const deadline = Date.now() + 10_000;
      while (!(await check())) {
        assert.ok(Date.now() < deadline, `${what}:\n${secondary?.log() ?? ''}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const change = async (method: string, path: string, body?: unknown) => {
      const response = await api(method, path, body);
      assert.ok(response.status === 200 || response.status === 204, `${method} ${path}: ${String(response.status)} ${response.text}`);
      const zoneRow = await api('GET', `/dns/v2/zones/${zone}`);
      // The zone's fields, wrapped in `Zone` unless the API speaks the gcore dialect.
      const fields = zoneRow.body as { Zone?: { serial: number }; serial?: number };
      const next = fields.Zone?.serial ?? fields.serial ?? 0;
      await eventually(`serial ${String(next)} served`, async () => (await serial()) === next);
      return next;
    };

    before(async () => {
      const knotPort = await freePort();
      service = await startService({
        engine,
        env: {
          EDGEPLANE_DNS_TRANSFER_ALLOW: '127.0.0.1',
          EDGEPLANE_DNS_NOTIFY: `127.0.0.1:${String(knotPort)}`,
          EDGEPLANE_DNS_JOURNAL_VERSIONS: String(journalVersions),
          // Below the import's 10,000 records: that change alone is never journaled.
          EDGEPLANE_DNS_JOURNAL_BYTES: '200000',
        },
      });
      const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
      api = (method, path, body) => call(service.url, method, path, { auth, body });
      assert.equal((await api('POST', '/dns/v2/zones', { name: zone })).status, 200);
      await eventually('the zone served', async () => (await serial()) !== 0);
      created = await serial();
      const lines = Array.from({ length: hosts }, (_, i) => `host${String(i)}.${zone}. 300 IN A 198.51.${String(Math.floor(i / 250))}.${String(i % 250)}`);
      lines.push(`www.${zone}. 300 IN A 192.0.2.1`, `${zone}. 300 IN MX 10 mail.${zone}.`);
      imported = await change('POST', `/dns/v2/zones/${zone}/import`, { content: `${lines.join('\n')}\n` });
      secondary = await startKnotSecondary(knotPort, zone, service.dnsPort);
      await eventually('Knot has the zone', async () => (await serial(secondary?.port)) === imported);
    });
    after(async () => {
      await secondary?.stop();
      await service.dispose();
    });

    test('one changed record: IXFR moves that change alone, Knot follows it by IXFR', async (t) => {
      changed = await change('PUT', `/dns/v2/zones/${zone}/www.${zone}/A`, { ttl: 300, resource_records: [{ content: ['192.0.2.2'] }] });
      const incremental = await transfer(service.dnsPort, ixfrQuery(imported));
      const { serial: current, steps } = differences(incremental.answers);
      assert.equal(current, changed);
      assert.deepEqual(steps, [{ from: imported, to: changed, removed: [`www.${zone} 300 A 192.0.2.1`], added: [`www.${zone} 300 A 192.0.2.2`] }]);
      const full = await transfer(service.dnsPort, buildQuery(zone, 'AXFR'));
      assert.equal(full.answers.length, hosts + 2 + 1 + 1 + 2);
      t.diagnostic(`one-record change to a zone of ${String(full.answers.length)} records: IXFR ${String(incremental.octets)} octets in ${String(incremental.messages.length)} message(s), AXFR ${String(full.octets)} octets in ${String(full.messages.length)}`);
      assert.ok(incremental.octets < 400, `IXFR moved ${String(incremental.octets)} octets`);
      assert.ok(full.octets > 50 * incremental.octets);

      await eventually('Knot follows the change', async () => (await serial(secondary?.port)) === changed);
      assert.deepEqual(addressesIn((await ask(secondary?.port ?? 0, `www.${zone}`, 'A')).packet), ['192.0.2.2']);
      const log = secondary?.log() ?? '';
      // Knot says how it transferred, and what the transfer moved.
      const ixfr = /IXFR, incoming, remote [^,]+, finished, [^,]+, (\d+) messages, (\d+) bytes/.exec(log);
      assert.ok(ixfr !== null, log);
      assert.ok(Number(ixfr[2]) < 400, log);
      assert.doesNotMatch(log, /AXFR-style IXFR/i);
      assert.match(log, new RegExp(`zone updated, [^,]+, serial ${String(imported)} -> ${String(changed)}`));
    });

    test('several changes of every kind: each version\'s removed and added records, in order', async () => {
      const start = await serial();
      const serials = [start];
      serials.push(await change('PUT', `/dns/v2/zones/${zone}/new.${zone}/TXT`, { ttl: 60, resource_records: [{ content: ['hello'] }] }));
      serials.push(await change('DELETE', `/dns/v2/zones/${zone}/host5.${zone}/A`));
      // A TTL change removes the record and adds it back with the new TTL.
      serials.push(await change('PUT', `/dns/v2/zones/${zone}/${zone}/MX`, { ttl: 600, resource_records: [{ content: [10, `mail.${zone}.`] }, { content: [20, `mail2.${zone}.`], enabled: false }] }));
      serials.push(await change('PUT', `/dns/v2/zones/${zone}`, { refresh: 7200 }));
      // Transfers carry no signer records: turning DNSSEC on changes the SOA alone.
      serials.push(await change('PATCH', `/dns/v2/zones/${zone}/dnssec`, { enabled: true }));
      const { serial: current, steps } = differences((await transfer(service.dnsPort, ixfrQuery(start))).answers);
      assert.equal(current, serials.at(-1));
      const step = (i: number, removed: string[], added: string[]) => ({ from: serials[i], to: serials[i + 1], removed, added });
      assert.deepEqual(steps, [
        step(0, [], [`new.${zone} 60 TXT ${JSON.stringify([Buffer.from('hello')])}`]),
        step(1, [`host5.${zone} 300 A 198.51.0.5`], []),
        step(2, [`${zone} 300 MX 10 mail.${zone}`], [`${zone} 600 MX 10 mail.${zone}`]),
        step(3, [], []),
        step(4, [], []),
      ]);
      // The SOA values before and after an edit are the journal's own.
      const soas = (await transfer(service.dnsPort, ixfrQuery(serials[3] ?? 0))).answers.flatMap((a) => (a.type === 'SOA' ? [[a.data.serial, a.data.refresh]] : []));
      assert.deepEqual(soas, [
        [serials[5], 7200],
        [serials[3], 3600],
        [serials[4], 7200],
        [serials[4], 7200],
        [serials[5], 7200],
        [serials[5], 7200],
      ]);
      await eventually('Knot follows', async () => (await serial(secondary?.port)) === serials.at(-1));
      for (const [name, type] of [[`new.${zone}`, 'TXT'], [`host5.${zone}`, 'A'], [zone, 'MX'], [`host6.${zone}`, 'A'], [zone, 'SOA']] as const) {
        const ours = (await ask(service.dnsPort, name, type)).packet;
        const theirs = (await ask(secondary?.port ?? 0, name, type)).packet;
        assert.equal(theirs.rcode, ours.rcode, `${name} ${type}`);
        assert.deepEqual((theirs.answers ?? []).map(text).sort(), (ours.answers ?? []).filter((a) => a.type !== 'RRSIG').map(text).sort(), `${name} ${type}`);
      }
    });

    test('a client up to date gets the SOA alone, over TCP and over UDP', async () => {
      const current = await serial();
      for (const asked of [current, (current + 5) % 2 ** 32]) {
        const reply = await transfer(service.dnsPort, ixfrQuery(asked));
        assert.deepEqual(reply.answers.map(text), [`${zone} 300 SOA ${String(current)}`]);
      }
      // Over UDP whatever the client's serial (RFC 1995 §2): the client asks again over TCP.
      const udp = decode(await udpExchange(service.dnsPort, ixfrQuery(imported)));
      assert.equal(udp.rcode, 'NOERROR');
      assert.deepEqual((udp.answers ?? []).map(text), [`${zone} 300 SOA ${String(current)}`]);
      // AXFR over UDP stays refused.
      assert.equal(decode(await udpExchange(service.dnsPort, buildQuery(zone, 'AXFR'))).rcode, 'REFUSED');
    });

    test('a serial the journal does not reach gets the whole zone', async () => {
      // The import was larger than the journal's byte bound: never journaled.
      const beforeImport = await transfer(service.dnsPort, ixfrQuery(created));
      // host5 deleted, new TXT added: as many as after the import.
      assert.equal(beforeImport.answers.length, hosts + 6);
      assert.ok(beforeImport.answers.slice(1, -1).every((a) => a.type !== 'SOA'));
      // After more changes than the journal keeps, the oldest version falls out of it.
      const current = await serial();
      assert.equal(differences((await transfer(service.dnsPort, ixfrQuery(imported))).answers).steps.length, 6);
      const latest = await change('PUT', `/dns/v2/zones/${zone}/new.${zone}/TXT`, { ttl: 60, resource_records: [{ content: ['again'] }] });
      const gone = await transfer(service.dnsPort, ixfrQuery(imported));
      assert.ok(gone.answers.length > hosts, 'a full answer');
      assert.ok(gone.answers.slice(1, -1).every((a) => a.type !== 'SOA'));
      const { steps } = differences((await transfer(service.dnsPort, ixfrQuery(changed))).answers);
      assert.equal(steps.length, journalVersions);
      assert.equal(steps.at(-1)?.to, latest);
      assert.deepEqual(differences((await transfer(service.dnsPort, ixfrQuery(current))).answers).steps.length, 1);
    });

    test('kdig IXFR=serial; the same access control as AXFR; an IXFR without the client\'s SOA is FORMERR', async () => {
      const current = await serial();
      const { stdout } = await run('kdig', ['@127.0.0.1', '-p', String(service.dnsPort), `IXFR=${String(changed)}`, zone, '+nocomments', '+nostats', '+noheader']);
      const lines = stdout.split('\n').filter((line) => line.trim() !== '' && !line.startsWith(';'));
      assert.ok(lines.length < 40, stdout);
      assert.match(lines[0] ?? '', new RegExp(`^${zone}\\.\\s+300\\s+IN\\s+SOA\\s.*\\s${String(current)}\\s`));
      assert.ok(lines.some((line) => /^new\.ixfr\.test\.\s+60\s+IN\s+TXT\s+"again"/.test(line)), stdout);
      const refused = decode((await tcpExchange(service.dnsPort, [ixfrQuery(imported)], { localAddress: '127.0.0.2' }))[0] ?? Buffer.alloc(0));
      assert.equal(refused.rcode, 'REFUSED');
      assert.equal((refused.answers ?? []).length, 0);
      const bare = decode((await tcpExchange(service.dnsPort, [buildQuery(zone, 'IXFR')]))[0] ?? Buffer.alloc(0));
      assert.equal(bare.rcode, 'FORMERR');
      const another = decode((await tcpExchange(service.dnsPort, [ixfrQuery(imported, 'other.test')]))[0] ?? Buffer.alloc(0));
      assert.equal(another.rcode, 'FORMERR');
    });

    test('a zone-file import, disabling and enabling: journaled as such, and Knot follows', async () => {
      const start = await serial();
      const added = await change('POST', `/dns/v2/zones/${zone}/import`, { content: `imp1.${zone}. 120 IN A 192.0.2.31\nimp2.${zone}. 120 IN AAAA 2001:db8::32\n` });
      // A disabled zone is not served: its serial is read from the API.
      assert.equal((await api('PATCH', `/dns/v2/zones/${zone}/disable`)).status, 200);
      const disabled = await change('PATCH', `/dns/v2/zones/${zone}/enable`);
      const { serial: current, steps } = differences((await transfer(service.dnsPort, ixfrQuery(start))).answers);
      assert.equal(current, disabled);
      assert.deepEqual(
        steps.map((s) => [s.removed, s.added]),
        [
          [[], [`imp1.${zone} 120 A 192.0.2.31`, `imp2.${zone} 120 AAAA 2001:db8::32`]],
          [[], []],
          [[], []],
        ],
      );
      assert.deepEqual([steps[0]?.from, steps[0]?.to, steps[2]?.to], [start, added, disabled]);
      await eventually('Knot follows', async () => (await serial(secondary?.port)) === disabled);
      assert.deepEqual(addressesIn((await ask(secondary?.port ?? 0, `imp1.${zone}`, 'A')).packet), ['192.0.2.31']);
    });
  });
}
