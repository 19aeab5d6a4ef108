// Hostile zone files through the import, on every store engine: seeded mutations of a zone holding
// every record type the API takes (characters the zone-file syntax gives meaning to spliced in,
// escapes valid and not, names past their limits, odd TTLs and classes, generic RDATA, lines
// doubled, dropped or cut). Each import must answer 200 with what it created and skipped, or a 400
// in the error model, never a 5xx; every RRset it created must be answered over DNS (not SERVFAIL,
// not silence); and the zone must survive its own export: imported into another zone, the export
// gives the same RRsets. A record that the import takes but the server cannot answer, or that the
// export writes in a form the import reads differently, would be found here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ask } from '../support/dns-client.ts';
import { dnsClient, rrsetLines, type RrsetView } from '../support/dns-records.ts';
import { engines } from '../support/engines.ts';
import { bearer, call, login } from '../support/http.ts';
import { pick, seededRandom } from '../support/prng.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const baseLines = [
  '$TTL 300',
  '@ IN SOA ns1 hostmaster 1 3600 600 1209600 300',
  'www IN A 192.0.2.1',
  'www 600 IN AAAA 2001:db8::1',
  'alias IN CNAME www',
  '@ IN MX 10 mail',
  'mail IN A 192.0.2.2',
  'txt IN TXT "v=spf1 -all" "second \\"quoted\\" string" unquoted',
  '_sip._tcp IN SRV 10 5 5060 sip.example.net.',
  '@ IN CAA 0 issue "letsencrypt.org"',
  'sub IN NS ns.elsewhere.example.',
  'sub IN DS 12345 13 2 3B1E6A2D9F1C0E5A7B4C8D2E6F0A1B3C5D7E9F1A2B4C6D8E0F1A3B5C7D9E1F2A',
  'ptr IN PTR host.example.',
  'svc IN HTTPS 1 . alpn="h2,h3" port=443',
  'svc2 IN SVCB 1 svc.example. port=8443 ipv4hint=192.0.2.7',
  '*.wild IN A 192.0.2.3',
  'multi ( IN A',
  '  192.0.2.4 ) ; a comment',
];

/** What the zone-file syntax and the record types give meaning to. */
const fragments = [
  '"', '\\', '\\"', '\\065', '\\999', '\\0', '(', ')', ';', '$', '@', '*', '.', '..', ' ', '\t', '\r', '\0', '\x7f', '\xc3\xa9', 'é', '\u2603',
  'IN', 'CH', 'ANY', 'TYPE65534', '\\# 4 c0000201', '\\# 0', '1w2d', '-1', '4294967296', '99999999999999999999', '0', '65536', 'x'.repeat(64),
  'a.'.repeat(130), 'xn--', 'xn--zz', '_', '-', '0x10', '::ffff:192.0.2.1', '1.2.3', '256.1.1.1', 'alpn=', 'mandatory=alpn', 'key65535=x', 'no-default-alpn',
  '$ORIGIN', '$ORIGIN other.example.', '$TTL', '$INCLUDE /etc/passwd', '$GENERATE 1-3 h$ A 192.0.2.$',
];

type Random = () => number;

/** A bent copy of the base zone. */
function zoneFile(random: Random): string {
  const lines = [...baseLines];
  for (let n = 1 + Math.floor(random() * 6); n > 0; n--) {
    const at = Math.floor(random() * lines.length);
    const line = lines[at] ?? '';
    switch (Math.floor(random() * 6)) {
      case 0: {
        const cut = Math.floor(random() * (line.length + 1));
        lines[at] = line.slice(0, cut) + pick(random, fragments) + line.slice(cut);
        break;
      }
      case 1: {
        // A token replaced.
        const tokens = line.split(' ');
        tokens[Math.floor(random() * tokens.length)] = pick(random, fragments);
        lines[at] = tokens.join(' ');
        break;
      }
      case 2:
        lines.splice(at, 0, line);
        break;
      case 3:
        lines.splice(at, 1);
        break;
      case 4:
        lines[at] = line.slice(0, Math.floor(random() * line.length));
        break;
      default:
        lines.splice(at, 0, `${pick(random, fragments)}${String(n)} IN ${pick(random, ['A', 'TXT', 'MX', 'CAA', 'SRV', 'HTTPS', 'DS', 'NS', 'CNAME', 'PTR', 'AAAA', 'SVCB', 'SOA'])} ${pick(random, fragments)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Every RRset but the zone's own SOA and apex NS (the service's): what two zones holding the same data share. */
const notApex = (zone: string) => (rrset: RrsetView) => rrset.name === zone && (rrset.type === 'SOA' || rrset.type === 'NS');

for (const engine of engines()) {
  describe(`hostile zone files through the import (${engine})`, () => {
    let service: Service;
    let auth: string;
    before(async () => {
      service = await startService({ engine });
      auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    });
    after(() => service.dispose());

    test('never a 5xx; what is created is served and survives the export', { timeout: 300_000 }, async () => {
      const random = seededRandom(7);
      const dns = dnsClient(service.url, auth);
      for (let i = 0; i < 40; i++) {
        const zone = `fuzz${String(i)}.example`;
        const copy = `copy${String(i)}.example`;
        for (const name of [zone, copy]) await dns.createZone(name);
        const file = zoneFile(random);
        const imported = await dns.importRaw(zone, file);
        assert.ok(imported.status === 200 || (imported.status === 400 && typeof (imported.body as { error?: unknown }).error === 'string'), `${String(imported.status)} ${imported.text}\n${file}`);
        if (imported.status === 200) {
          for (const created of imported.body.created) {
            const reply = await ask(service.dnsPort, created.name, created.type);
            assert.ok(['NOERROR', 'NXDOMAIN'].includes(reply.packet.rcode), `${created.name} ${created.type}: ${reply.packet.rcode}\n${file}`);
          }
          const raw = (await dns.exportZone(zone)).replaceAll(`${zone}.`, `${copy}.`);
          const again = await dns.importRaw(copy, raw);
          assert.equal(again.status, 200, `${again.text}\n${raw}`);
          // Names in the zone's own records (an MX's, a CNAME's target) move with it.
          const original = rrsetLines(await dns.rrsets(zone), notApex(zone)).map((line) => line.replaceAll(zone, copy));
          assert.deepEqual(rrsetLines(await dns.rrsets(copy), notApex(copy)), original, `the export of:\n${file}\nis:\n${raw}`);
        }
        for (const name of [zone, copy]) await dns.deleteZone(name);
      }
      const ready = await call(service.url, 'GET', '/readyz');
      assert.equal(ready.status, 200, ready.text);
    });
  });
}
