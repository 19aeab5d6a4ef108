// Online DNSSEC as validating resolvers see it: a zone built through the API, DNSSEC turned on
// through the API, and every kind of answer checked by software we did not write — BIND's delv with
// the API's DS as its only trust anchor, Unbound as a validating resolver, BIND's dnssec-dsfromkey
// and ldns-walk.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import type { Answer } from 'dns-packet';
import { engines } from '../support/engines.ts';
import { ask, buildQuery, decode, udpExchange } from '../support/dns-client.ts';
import { bearer, call, login } from '../support/http.ts';
import { freePort } from '../support/free-port.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const run = promisify(execFile);

interface Dnssec {
  key_tag: number;
  digest: string;
  ds: string;
  public_key: string;
}

/** Addresses of known countries (GeoIP data shipped with the service), bound to the loopback for delv -b. */
const requesters = { us: '8.8.8.200', nl: '193.0.6.200' } as const;

/** Adds the requesters' addresses to `lo` (needs root); false where the machine does not allow it. */
async function addRequesterAddresses(): Promise<boolean> {
  try {
    for (const address of Object.values(requesters)) await run('ip', ['addr', 'replace', `${address}/32`, 'dev', 'lo']);
    return true;
  } catch {
    process.stderr.write('\n*** cannot add addresses to lo (not root?): DNSSEC picker tests from other countries are SKIPPED ***\n\n');
    return false;
  }
}

async function removeRequesterAddresses(): Promise<void> {
  for (const address of Object.values(requesters)) await run('ip', ['addr', 'del', `${address}/32`, 'dev', 'lo']).catch(() => undefined);
}

const rrsigs = (answers: Answer[] | undefined) => (answers ?? []).filter((a) => a.type === 'RRSIG');
const types = (answers: Answer[] | undefined) => (answers ?? []).map((a) => a.type);
const ttlOf = (answers: Answer[] | undefined) => (answers?.[0] as { ttl?: number } | undefined)?.ttl ?? 0;

/** The first record of a type, as dns-packet decodes it. */
function first(answers: Answer[] | undefined, type: string): unknown {
  const found = (answers ?? []).find((a) => a.type === type);
  assert.ok(found, `no ${type} record`);
  return found;
}

for (const engine of engines()) {
  describe(`online DNSSEC (${engine})`, () => {
    let service: Service;
    let api: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
    let anchorFile: string;
    let key: Dnssec;
    let otherCountries = false;
    const put = async (zone: string, name: string, type: string, content: unknown[][], extra: Record<string, unknown> = {}) => {
      const response = await api('PUT', `/dns/v2/zones/${zone}/${name}/${type}`, { ttl: 300, resource_records: content.map((c) => ({ content: c })), ...extra });
      assert.equal(response.status, 200, response.text);
    };
    const dnssec = async (zone: string, enabled: boolean) => {
      const response = await api('PATCH', `/dns/v2/zones/${zone}/dnssec`, { enabled });
      assert.equal(response.status, 200, response.text);
      return response.body as Dnssec;
    };
    /** delv's output (stdout and stderr) for a question, trusting only the API's DS. */
    const delv = async (name: string, type: string, source?: string) => {
      const args = ['@127.0.0.1', '-p', String(service.dnsPort), '-a', anchorFile, '+root=signed.test', ...(source ? ['-b', source] : []), name, type];
      const { stdout, stderr } = await run('delv', args).catch((e: unknown) => e as { stdout: string; stderr: string });
      return `${stdout}${stderr}`;
    };
    const q = (name: string, type: string, options = {}) => ask(service.dnsPort, name, type, options);

    before(async () => {
      service = await startService({ engine, env: { EDGEPLANE_NAMESERVERS: 'ns1.signed.test,ns2.signed.test' } });
      const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
      api = (method, p, body) => call(service.url, method, p, { auth, body });
      for (const zone of ['signed.test', 'child.signed.test', 'plain.signed.test']) assert.equal((await api('POST', '/dns/v2/zones', { name: zone, nx_ttl: 300 })).status, 200);
      await put('signed.test', 'ns1', 'A', [['192.0.2.53']]);
      await put('signed.test', 'ns2', 'A', [['192.0.2.54']]);
      await put('signed.test', 'www', 'A', [['192.0.2.1'], ['192.0.2.2']]);
      await put('signed.test', 'signed.test', 'MX', [[10, 'mail.signed.test.']]);
      await put('signed.test', 'mail', 'A', [['192.0.2.25']]);
      await put('signed.test', 'alias', 'CNAME', [['www.signed.test.']]);
      await put('signed.test', 'chain', 'CNAME', [['alias.signed.test.']]);
      await put('signed.test', 'dangling', 'CNAME', [['nowhere.signed.test.']]);
      await put('signed.test', '*.wild', 'TXT', [['wildcard']]);
      await put('signed.test', 'x.ent', 'A', [['192.0.2.9']]);
      await put('signed.test', 'long', 'A', [['192.0.2.10']], { ttl: 2_592_000 });
      // A delegation to servers elsewhere (insecure), and two to zones this server also hosts.
      await put('signed.test', 'sub', 'NS', [['ns.sub.signed.test.']]);
      await put('signed.test', 'ns.sub', 'A', [['192.0.2.55']]);
      await put('signed.test', 'child', 'NS', [['ns1.signed.test.']]);
      await put('signed.test', 'plain', 'NS', [['ns1.signed.test.']]);
      await put('child.signed.test', 'www', 'A', [['192.0.2.71']]);
      await put('plain.signed.test', 'www', 'A', [['192.0.2.72']]);
      const child = await dnssec('child.signed.test', true);
      await put('signed.test', 'child', 'DS', [[child.key_tag, 13, 2, child.digest]]);
      await put('signed.test', 'geo', 'A', [], {
        pickers: [{ type: 'geodns', strict: false }, { type: 'first_n', limit: 1 }],
        resource_records: [
          { content: ['192.0.2.101'], meta: { countries: ['us'] } },
          { content: ['192.0.2.111'], meta: { countries: ['us'] } },
          { content: ['192.0.2.102'], meta: { countries: ['nl'] } },
          { content: ['192.0.2.103'], meta: { default: true } },
        ],
      });
      key = await dnssec('signed.test', true);
      anchorFile = path.join(service.dataDir, 'anchor.conf');
      fs.writeFileSync(anchorFile, `trust-anchors { signed.test. static-ds ${String(key.key_tag)} 13 2 "${key.digest}"; };\n`);
      otherCountries = await addRequesterAddresses();
    });
    after(async () => {
      await removeRequesterAddresses();
      await service.dispose();
    });

    test('delv validates a positive answer, NODATA, a missing name, a wildcard and CNAME chains', async () => {
      const positive = await delv('www.signed.test', 'A');
      assert.match(positive, /; fully validated/);
      assert.match(positive, /www\.signed\.test\.\s+300\s+IN\s+A\s+192\.0\.2\.1/);
      assert.match(positive, /RRSIG\s+A 13 3 300 /);
      for (const [name, type] of [['www.signed.test', 'AAAA'], ['nope.signed.test', 'A'], ['deeper.nope.signed.test', 'TXT'], ['ent.signed.test', 'A'], ['x.wild.signed.test', 'A']] as const) {
        assert.match(await delv(name, type), /; negative response, fully validated/, `${name} ${type}`);
      }
      const wildcard = await delv('a.b.wild.signed.test', 'TXT');
      assert.match(wildcard, /; fully validated/);
      // The signature is the wildcard's: its label count is that of `wild.signed.test`.
      assert.match(wildcard, /a\.b\.wild\.signed\.test\.\s+300\s+IN\s+RRSIG\s+TXT 13 3 /);
      // A CNAME to a missing name: the CNAME validates, and so does the target's denial.
      const dangling = await delv('dangling.signed.test', 'A');
      assert.match(dangling, /; fully validated/);
      assert.match(dangling, /nowhere\.signed\.test\. NSEC \\000\.nowhere\.signed\.test\. RRSIG NSEC TYPE128/);
      const chain = await delv('chain.signed.test', 'A');
      assert.match(chain, /; fully validated/);
      assert.match(chain, /chain\.signed\.test\.\s+300\s+IN\s+CNAME\s+alias\.signed\.test\./);
      assert.match(chain, /www\.signed\.test\.\s+300\s+IN\s+A\s+192\.0\.2\.2/);
      assert.match(await delv('signed.test', 'MX'), /; fully validated/);
      // Names with a dot or a backslash inside a label are proven, and answered by wildcards, all the same.
      assert.match(await delv('a\\.b.signed.test', 'A'), /; negative response, fully validated/);
      assert.match(await delv('x\\\\y.signed.test', 'A'), /; negative response, fully validated/);
      assert.match(await delv('a\\.b.wild.signed.test', 'TXT'), /; fully validated/);
      // Only ASCII letters are lowered in the canonical form (RFC 4034 §6.2): octet 201 ('É' in latin1) stays.
      assert.match(await delv('caf\\201.signed.test', 'A'), /; negative response, fully validated/);
    });

    test('a secure delegation validates down the DS; an insecure one is proven insecure', async () => {
      const secure = await delv('www.child.signed.test', 'A');
      assert.match(secure, /; fully validated/);
      assert.match(secure, /192\.0\.2\.71/);
      assert.match(await delv('child.signed.test', 'DS'), /; fully validated/);
      const insecure = await delv('www.plain.signed.test', 'A');
      assert.match(insecure, /; unsigned answer/);
      assert.match(insecure, /192\.0\.2\.72/);
      // No DS at either insecure cut, proven by a signed NSEC listing NS and not DS.
      for (const cut of ['plain.signed.test', 'sub.signed.test']) assert.match(await delv(cut, 'DS'), /; negative response, fully validated/, cut);
      const referral = (await q('x.sub.signed.test', 'A', { dnssecOk: true })).packet;
      assert.equal(referral.flag_aa, false);
      const nsec = first(referral.authorities, 'NSEC') as { name: string; data: { rrtypes: string[] } };
      assert.equal(nsec.name, 'sub.signed.test');
      assert.deepEqual(nsec.data.rrtypes.sort(), ['NS', 'NSEC', 'RRSIG']);
      assert.deepEqual(types(referral.authorities).filter((t) => t === 'RRSIG').length, 1, 'the NS of a referral is not signed, its NSEC is');
    });

    test('answers tailored by geodns and first_n validate for requesters in different countries', async (t) => {
      if (!otherCountries) {
        t.skip('no requester addresses');
        return;
      }
      const us = await delv('geo.signed.test', 'A', requesters.us);
      assert.match(us, /; fully validated/);
      assert.match(us, /IN\s+A\s+192\.0\.2\.101/);
      assert.doesNotMatch(us, /192\.0\.2\.111/, 'first_n keeps one record');
      const nl = await delv('geo.signed.test', 'A', requesters.nl);
      assert.match(nl, /; fully validated/);
      assert.match(nl, /IN\s+A\s+192\.0\.2\.102/);
      const local = await delv('geo.signed.test', 'A');
      assert.match(local, /; fully validated/);
      assert.match(local, /IN\s+A\s+192\.0\.2\.103/);
    });

    test('each subset a picker chooses has its own signature, made once and reused', async () => {
      const signature = async (address: string) => {
        const reply = (await q('geo.signed.test', 'A', { dnssecOk: true, subnet: { address, prefix: 24 } })).packet;
        return JSON.stringify(rrsigs(reply.answers).map((a) => a.data));
      };
      const us = await signature('8.8.8.0');
      const nl = await signature('193.0.6.0');
      assert.notEqual(us, nl);
      // ECDSA signatures differ every time they are made: equal bytes mean the signature was kept.
      assert.equal(await signature('8.8.8.0'), us);
      assert.equal(await signature('193.0.6.0'), nl);
      const www = async () => JSON.stringify(rrsigs((await q('www.signed.test', 'A', { dnssecOk: true })).packet.answers).map((a) => a.data));
      const first = await www();
      assert.equal(await www(), first);
      await put('signed.test', 'www', 'A', [['192.0.2.1'], ['192.0.2.3']]);
      assert.notEqual(await www(), first, 'a changed RRset is signed anew');
      assert.match(await delv('www.signed.test', 'A'), /192\.0\.2\.3/);
    });

    test('queries without DO get no DNSSEC records; signed TTLs never outlive the signature', async () => {
      const plain = (await q('www.signed.test', 'A')).packet;
      assert.deepEqual(types(plain.answers), ['A', 'A']);
      const missing = (await q('nope.signed.test', 'A')).packet;
      assert.equal(missing.rcode, 'NXDOMAIN');
      assert.deepEqual(types(missing.authorities), ['SOA']);
      const long = (await q('long.signed.test', 'A', { dnssecOk: true })).packet;
      const rrsig = first(long.answers, 'RRSIG') as { data: { originalTTL: number; expiration: number } };
      assert.equal(rrsig.data.originalTTL, 2_592_000);
      const ttl = ttlOf(long.answers);
      assert.ok(ttl > 0 && ttl <= 7 * 86400, `TTL ${String(ttl)} is capped`);
      assert.ok(Date.now() / 1000 + ttl < rrsig.data.expiration, 'the answer expires before its signature');
      assert.equal(ttlOf((await q('long.signed.test', 'A')).packet.answers), 2_592_000);
    });

    test('a missing name gets a compact NSEC (NXNAME); the CO bit keeps NXDOMAIN; NXNAME queries are FORMERR', async () => {
      const compact = (await q('nope.signed.test', 'A', { dnssecOk: true })).packet;
      assert.equal(compact.rcode, 'NOERROR');
      const nsec = first(compact.authorities, 'NSEC') as { name: string; data: { nextDomain: string; rrtypes: string[] } };
      assert.equal(nsec.name, 'nope.signed.test');
      assert.equal(nsec.data.nextDomain, '\u0000.nope.signed.test');
      assert.deepEqual(nsec.data.rrtypes.sort(), ['NSEC', 'RRSIG', 'UNKNOWN_128']);
      const message = buildQuery('nope.signed.test', 'A', { dnssecOk: true });
      // The OPT record is last: its flags' high octet sits 4 octets from the end.
      message[message.length - 4] = (message[message.length - 4] ?? 0) | 0x40;
      const withCo = await udpExchange(service.dnsPort, message);
      assert.equal(decode(withCo).rcode, 'NXDOMAIN');
      assert.equal((withCo[withCo.length - 4] ?? 0) & 0xc0, 0xc0, 'DO and CO echoed');
      const nxname = buildQuery('nope.signed.test', 'A');
      nxname.writeUInt16BE(128, nxname.length - 4);
      assert.equal(decode(await udpExchange(service.dnsPort, nxname)).rcode, 'FORMERR');
    });

    test('NSEC and RRSIG questions: the NSEC a NODATA would carry; the signatures alone, one RRset over UDP', async () => {
      const nsec = (await q('www.signed.test', 'NSEC', { dnssecOk: true })).packet;
      const record = first(nsec.answers, 'NSEC') as { name: string; data: { nextDomain: string; rrtypes: string[] } };
      assert.equal(record.data.nextDomain, '\u0000.www.signed.test');
      assert.deepEqual(record.data.rrtypes.sort(), ['A', 'NSEC', 'RRSIG']);
      assert.deepEqual(types(nsec.answers), ['NSEC', 'RRSIG']);
      const udp = (await q('signed.test', 'RRSIG', { dnssecOk: true })).packet;
      assert.deepEqual(types(udp.answers), ['RRSIG']);
      const tcp = (await q('signed.test', 'RRSIG', { dnssecOk: true, tcp: true })).packet;
      const covered = (tcp.answers ?? []).map((a) => (a as unknown as { data: { typeCovered: string } }).data.typeCovered).sort();
      assert.deepEqual(covered, ['CDNSKEY', 'CDS', 'DNSKEY', 'MX', 'NS', 'SOA']);
      // Without DO, or for a zone without DNSSEC, these are ordinary NODATA answers.
      assert.deepEqual(types((await q('www.signed.test', 'NSEC')).packet.answers), []);
      assert.deepEqual(types((await q('www.plain.signed.test', 'NSEC', { dnssecOk: true })).packet.answers), []);
    });

    test('the served DNSKEY gives the API\'s DS (dnssec-dsfromkey); CDS and CDNSKEY publish the same key', async () => {
      const { stdout } = await run('kdig', ['@127.0.0.1', '-p', String(service.dnsPort), '+norec', '+noall', '+answer', 'signed.test', 'DNSKEY']);
      const keyFile = path.join(service.dataDir, 'dnskey.txt');
      fs.writeFileSync(keyFile, stdout);
      const ds = (await run('dnssec-dsfromkey', ['-2', '-f', keyFile, 'signed.test'])).stdout.trim().split(/\s+/);
      assert.deepEqual(ds.slice(-4), [String(key.key_tag), '13', '2', key.digest]);
      const cds = (await run('kdig', ['@127.0.0.1', '-p', String(service.dnsPort), '+norec', '+short', 'signed.test', 'CDS'])).stdout.trim();
      assert.equal(cds, `${String(key.key_tag)} 13 2 ${key.digest}`);
      const cdnskey = (await run('kdig', ['@127.0.0.1', '-p', String(service.dnsPort), '+norec', '+short', 'signed.test', 'CDNSKEY'])).stdout.trim();
      assert.equal(cdnskey.replaceAll(' ', ''), `257313${key.public_key}`);
    });

    test('a validating resolver (Unbound) resolves every name of the zone securely', async () => {
      // Unbound binds UDP and TCP on a port chosen free a moment before; another test may take it
      // first, and then Unbound exits at once: try another.
      const startUnbound = (port: number) => {
        const dir = fs.mkdtempSync(path.join(service.dataDir, 'unbound-'));
        const config = path.join(dir, 'unbound.conf');
        fs.writeFileSync(config, [
          'server:',
          '  interface: 127.0.0.1',
          `  port: ${String(port)}`,
          '  do-daemonize: no',
          '  chroot: ""',
          '  username: ""',
          `  directory: "${dir}"`,
          `  pidfile: "${dir}/unbound.pid"`,
          '  use-syslog: no',
          '  do-ip6: no',
          '  do-not-query-localhost: no',
          '  module-config: "validator iterator"',
          // Unbound answers the special-use .test names itself unless told not to (RFC 6761).
          '  local-zone: "test." nodefault',
          `  trust-anchor: "${key.ds}"`,
          'stub-zone:',
          '  name: "signed.test"',
          `  stub-addr: 127.0.0.1@${String(service.dnsPort)}`,
          'remote-control:',
          '  control-enable: no',
          '',
        ].join('\n'));
        const child = spawn('unbound', ['-d', '-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
        const started = { child, port, log: '' };
        child.stderr.on('data', (chunk: Buffer) => (started.log += chunk.toString()));
        return started;
      };
      let unbound = startUnbound(await freePort());
      for (let attempt = 0; attempt < 5; attempt++) {
        await new Promise((r) => setTimeout(r, 300));
        if (unbound.child.exitCode === null || !unbound.log.includes('could not open ports')) break;
        unbound = startUnbound(await freePort());
      }
      const { port } = unbound;
      try {
        const resolve = async (name: string, type: string) => {
          for (let attempt = 0; ; attempt++) {
            try {
              return (await ask(port, name, type, { recursionDesired: true, dnssecOk: true })).packet;
            } catch (e) {
              if (attempt > 50 || unbound.child.exitCode !== null) throw new Error(`unbound does not answer: ${unbound.log}`, { cause: e });
              await new Promise((r) => setTimeout(r, 100));
            }
          }
        };
        const names: [string, string, string][] = [
          ['www.signed.test', 'A', 'NOERROR'], ['signed.test', 'MX', 'NOERROR'], ['mail.signed.test', 'A', 'NOERROR'],
          ['alias.signed.test', 'A', 'NOERROR'], ['chain.signed.test', 'A', 'NOERROR'], ['any.thing.wild.signed.test', 'TXT', 'NOERROR'],
          ['x.ent.signed.test', 'A', 'NOERROR'], ['geo.signed.test', 'A', 'NOERROR'], ['long.signed.test', 'A', 'NOERROR'],
          ['www.child.signed.test', 'A', 'NOERROR'], ['www.signed.test', 'TXT', 'NOERROR'], ['nope.signed.test', 'A', 'NOERROR'],
          ['ent.signed.test', 'A', 'NOERROR'], ['dangling.signed.test', 'A', 'NOERROR'],
        ];
        for (const [name, type, rcode] of names) {
          const reply = await resolve(name, type);
          assert.equal(reply.rcode, rcode, `${name} ${type}`);
          assert.equal(reply.flag_ad, true, `${name} ${type} is secure (AD)`);
        }
        // The insecure delegation resolves, without AD.
        const insecure = await resolve('www.plain.signed.test', 'A');
        assert.equal(insecure.rcode, 'NOERROR');
        assert.equal(insecure.flag_ad, false);
      } finally {
        unbound.child.kill();
      }
    });

    test('turning DNSSEC off stops signing and the DNSKEY; on again publishes the key the API reports', async () => {
      assert.equal((await api('PATCH', '/dns/v2/zones/signed.test/dnssec', { enabled: false })).status, 200);
      const off = (await q('www.signed.test', 'A', { dnssecOk: true })).packet;
      assert.deepEqual(types(off.answers), ['A', 'A']);
      assert.equal((await q('signed.test', 'DNSKEY', { dnssecOk: true })).packet.answers?.length, 0);
      assert.equal((await q('nope.signed.test', 'A', { dnssecOk: true })).packet.rcode, 'NXDOMAIN');
      const again = await dnssec('signed.test', true);
      assert.equal(again.key_tag, key.key_tag);
      assert.match(await delv('www.signed.test', 'A'), /; fully validated/);
    });
  });
}
