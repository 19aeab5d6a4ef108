// Helpers for the DNS record tests (test/e2e/dns-records.test.ts): a small client for zones and
// RRsets over the HTTP API, the content cases per record type, and the zone-file checkers found on
// the PATH.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { ImportResult } from '../../src/dns/zone-file-io.ts';
import { call, type Response } from './http.ts';

export interface RecordView {
  id: number;
  content: unknown[];
  enabled: boolean;
}

export interface RrsetView {
  name: string;
  type: string;
  ttl: number;
  resource_records: RecordView[];
}

export type { ImportResult };

/** A record as PUT sends it: bare content, or content with its enabled flag. */
export type RecordInput = unknown[] | { content: unknown[]; enabled?: boolean };

export function dnsClient(url: string, auth: string) {
  const rrsetPath = (zone: string, name: string, type: string) =>
    `/dns/v2/zones/${encodeURIComponent(zone)}/${encodeURIComponent(name)}/${encodeURIComponent(type)}`;
  const client = {
    createZone: async (name: string): Promise<void> => {
      const created = await call(url, 'POST', '/dns/v2/zones', { auth, body: { name } });
      assert.equal(created.status, 200, created.text);
    },
    deleteZone: async (name: string): Promise<void> => {
      const deleted = await call(url, 'DELETE', `/dns/v2/zones/${encodeURIComponent(name)}`, { auth });
      assert.equal(deleted.status, 200, deleted.text);
    },
    /** The zone's fields (the seed profile wraps them in "Zone"). */
    zone: async (name: string): Promise<Record<string, any>> => {
      const read = await call(url, 'GET', `/dns/v2/zones/${encodeURIComponent(name)}`, { auth });
      assert.equal(read.status, 200, read.text);
      return read.body.Zone ?? read.body;
    },
    serial: async (name: string): Promise<number> => (await client.zone(name))['serial'] as number,
    put: (zone: string, name: string, type: string, records: RecordInput[], ttl = 300): Promise<Response<any>> =>
      call(url, 'PUT', rrsetPath(zone, name, type), {
        auth,
        body: { ttl, resource_records: records.map((record) => (Array.isArray(record) ? { content: record } : record)) },
      }),
    get: (zone: string, name: string, type: string): Promise<Response<RrsetView>> => call<RrsetView>(url, 'GET', rrsetPath(zone, name, type), { auth }),
    del: (zone: string, name: string, type: string): Promise<Response<any>> => call(url, 'DELETE', rrsetPath(zone, name, type), { auth }),
    /** The content of each record of an RRset that must exist. */
    contents: async (zone: string, name: string, type: string): Promise<unknown[][]> => {
      const read = await client.get(zone, name, type);
      assert.equal(read.status, 200, `GET ${name} ${type}: ${read.text}`);
      return read.body.resource_records.map((record) => record.content);
    },
    rrsets: async (zone: string): Promise<RrsetView[]> => {
      const list = await call<{ rrsets: RrsetView[] }>(url, 'GET', `/dns/v2/zones/${encodeURIComponent(zone)}/rrsets`, { auth });
      assert.equal(list.status, 200, list.text);
      return list.body.rrsets;
    },
    exportZone: async (zone: string): Promise<string> => {
      const exported = await call<{ raw_zone: string }>(url, 'GET', `/dns/v2/zones/${encodeURIComponent(zone)}/export`, { auth });
      assert.equal(exported.status, 200, exported.text);
      return exported.body.raw_zone;
    },
    importJson: (zone: string, content: string): Promise<Response<ImportResult>> =>
      call<ImportResult>(url, 'POST', `/dns/v2/zones/${encodeURIComponent(zone)}/import`, { auth, body: { content } }),
    importRaw: (zone: string, text: string, contentType = 'text/plain'): Promise<Response<ImportResult>> =>
      call<ImportResult>(url, 'POST', `/dns/v2/zones/${encodeURIComponent(zone)}/import`, { auth, raw: text, contentType }),
  };
  return client;
}

export type DnsClient = ReturnType<typeof dnsClient>;

/** Index of the content elements that are domain names, per type. */
const nameFields: Record<string, number> = { CNAME: 0, NS: 0, PTR: 0, MX: 1, SRV: 3, HTTPS: 1, SVCB: 1 };

/**
 * Content as a zone file carries it: names in RDATA are always absolute there, and import gives
 * them back without the trailing dot (the record-type contract), so a target that was sent with a
 * dot comes back without one. This drops that dot (the root "." stays).
 */
export function withoutTrailingDots(type: string, content: readonly unknown[]): unknown[] {
  const index = nameFields[type];
  return content.map((value, i) => (i === index && typeof value === 'string' && value !== '.' && value.endsWith('.') ? value.slice(0, -1) : value));
}

/** RRsets as comparable lines "name type ttl content" (enabled records only), sorted. */
export function rrsetLines(rrsets: readonly RrsetView[], skip: (rrset: RrsetView) => boolean = () => false): string[] {
  return rrsets
    .filter((rrset) => !skip(rrset))
    .flatMap((rrset) =>
      rrset.resource_records
        .filter((record) => record.enabled)
        .map((record) => `${rrset.name} ${rrset.type} ${rrset.ttl} ${JSON.stringify(withoutTrailingDots(rrset.type, record.content))}`),
    )
    .sort();
}

/** Valid content per type and its exact canonical form. */
export const validContent: Record<string, [input: unknown[], canonical: unknown[]][]> = {
  A: [
    [['192.0.2.1'], ['192.0.2.1']],
    [['0.0.0.0'], ['0.0.0.0']],
    [['255.255.255.255'], ['255.255.255.255']],
  ],
  AAAA: [
    [['2001:DB8:0:0:0:0:0:1'], ['2001:db8::1']],
    [['2001:0db8:0000:0000:0001:0000:0000:0001'], ['2001:db8::1:0:0:1']],
    [['FE80:0:0:0:1:0:0:0'], ['fe80::1:0:0:0']],
    [['::'], ['::']],
  ],
  CNAME: [
    [['Target.Example.NET.'], ['target.example.net.']],
    [['target.example.net'], ['target.example.net']],
    [['bücher.example'], ['xn--bcher-kva.example']],
    [['_acme-challenge.Example.org.'], ['_acme-challenge.example.org.']],
  ],
  NS: [
    [['NS1.Example.NET.'], ['ns1.example.net.']],
    [['ns2.example.net'], ['ns2.example.net']],
    [['ns.bücher.example.'], ['ns.xn--bcher-kva.example.']],
  ],
  PTR: [
    [['Host.Example.com.'], ['host.example.com.']],
    [['MÜNCHEN.example'], ['xn--mnchen-3ya.example']],
  ],
  MX: [
    [['10', 'Mail.Example.com.'], [10, 'mail.example.com.']],
    [[0, '.'], [0, '.']],
    [[65535, 'mx.bücher.example'], [65535, 'mx.xn--bcher-kva.example']],
  ],
  TXT: [
    [['v=spf1 include:_spf.example.com -all'], ['v=spf1 include:_spf.example.com -all']],
    [['say "hi" \\ and ünïcödé ☃ 🙂'], ['say "hi" \\ and ünïcödé ☃ 🙂']],
    [['  leading and trailing spaces  '], ['  leading and trailing spaces  ']],
    [[''], ['']],
    // 600 octets in UTF-8: more than two 255-octet strings on the wire.
    [['é'.repeat(300)], ['é'.repeat(300)]],
  ],
  SRV: [
    [['10', '5', '5061', 'SIP.example.com.'], [10, 5, 5061, 'sip.example.com.']],
    [[0, 0, 0, '.'], [0, 0, 0, '.']],
    [[65535, 65535, 65535, 'sip.bücher.example'], [65535, 65535, 65535, 'sip.xn--bcher-kva.example']],
  ],
  CAA: [
    [['0', 'ISSUE', 'letsencrypt.org'], [0, 'issue', 'letsencrypt.org']],
    [[128, 'iodef', 'mailto:security@example.com'], [128, 'iodef', 'mailto:security@example.com']],
    [[0, 'issuewild', ';'], [0, 'issuewild', ';']],
  ],
  HTTPS: [
    [
      ['1', 'Bücher.example.', ['port', '443'], ['mandatory', 'port', 'alpn'], ['ipv6hint', '2001:DB8::0:1'], ['alpn', 'h3', 'h2'], ['no-default-alpn'], ['ech', 'AEX+/w=='], ['ipv4hint', '192.0.2.1', '192.0.2.2']],
      [1, 'xn--bcher-kva.example.', ['mandatory', 'alpn', 'port'], ['alpn', 'h3', 'h2'], ['no-default-alpn'], ['port', 443], ['ipv4hint', '192.0.2.1', '192.0.2.2'], ['ech', 'AEX+/w=='], ['ipv6hint', '2001:db8::1']],
    ],
    [[0, 'pool.example.net.'], [0, 'pool.example.net.']],
    [[2, '.', ['KEY3', '8443'], ['ALPN', 'h2']], [2, '.', ['alpn', 'h2'], ['port', 8443]]],
  ],
  SVCB: [
    [[1, 'doh.example.net', ['dohpath', '/dns-query{?dns}'], ['alpn', 'h2']], [1, 'doh.example.net', ['alpn', 'h2'], ['dohpath', '/dns-query{?dns}']]],
    [['2', '.', ['key65000', 'opaque'], ['port', '53']], [2, '.', ['port', 53], ['key65000', 'opaque']]],
    [[0, 'Svc.Example.NET.'], [0, 'svc.example.net.']],
  ],
  DS: [
    [[12345, 13, 2, 'ab'.repeat(32)], [12345, 13, 2, 'AB'.repeat(32)]],
    [['60485', '5', '1', '2bb183af5f22588179a53b0a98631fad1a292118'], [60485, 5, 1, '2BB183AF5F22588179A53B0A98631FAD1A292118']],
    [[0, 8, 4, `${'0a'.repeat(24)} ${'fF'.repeat(24)}`], [0, 8, 4, `${'0A'.repeat(24)}${'FF'.repeat(24)}`]],
  ],
};

/** Content each type must refuse. */
export const invalidContent: Record<string, unknown[][]> = {
  A: [['010.1.1.1'], ['256.1.1.1'], ['1.2.3'], ['2001:db8::1'], [3221225985], [], ['192.0.2.1', '192.0.2.2'], [' 192.0.2.1']],
  AAAA: [['fe80::1%eth0'], ['192.0.2.1'], ['2001:db8::g'], ['1::2::3'], [20010], []],
  CNAME: [['.'], ['a..example.com'], ['-bad.example.com'], ['*.example.com'], [42], [`${'x'.repeat(64)}.example.com`], ['a.example', 'b.example'], ['']],
  NS: [['.'], ['ns 1.example.net'], [], ['ns1.example.net', 'ns2.example.net'], [null]],
  PTR: [['.'], [''], [null], ['bad_label-.example']],
  MX: [[10], [70000, 'mail.example.com'], ['-1', 'mail.example.com'], [10.5, 'mail.example.com'], ['0x10', 'mail.example.com'], [10, '*.example.com'], [true, 'mail.example.com']],
  TXT: [[], ['a', 'b'], [42], ['\ud800'], ['x'.repeat(65280)]],
  SRV: [[1, 2, 3], [1, 2, 65536, 'sip.example.com'], ['x', 2, 3, 'sip.example.com'], [1, 2, 3, ''], [1, 2, 3, 'sip.example.com', 4]],
  CAA: [[256, 'issue', 'ca.example'], [0, 'is-sue', 'ca.example'], [0, '', 'ca.example'], [0, 'issue', 5], [0, 'issue'], [0, 'a'.repeat(16), 'x']],
  HTTPS: [
    [1],
    [0, '.', ['alpn', 'h2']],
    [1, '.', ['foo', 'x']],
    [1, '.', ['alpn']],
    [1, '.', ['port', 'x']],
    [1, '.', ['port', 1, 2]],
    [1, '.', ['mandatory', 'port']],
    [1, '.', ['no-default-alpn']],
    [1, '.', ['port', 1], ['port', 2]],
    [1, '.', ['ech', 'AEX']],
    [1, '.', ['ipv4hint', '2001:db8::1']],
    [1, '.', 'alpn'],
    [1, '*.example.com'],
  ],
  SVCB: [[65536, '.'], [1, '.', ['mandatory', 'mandatory']], [1, '.', ['key65536', 'x']], [1, '.', ['no-default-alpn', 'x'], ['alpn', 'h2']], [1, '.', ['alpn', 'h,2']], [1, '.', ['ipv6hint', '192.0.2.1']]],
  DS: [[1, 13, 2, 'ab'], [1, 13, 2, 'zz'.repeat(32)], [1, 0, 2, 'ab'.repeat(32)], [65536, 13, 2, 'ab'.repeat(32)], [1, 13, 1, 'abc'], [1, 13, 0, 'ab'], [1, 13, 2]],
};

/** A zone-file checker on the PATH (kzonecheck from Knot, named-checkzone from BIND), if any. */
export function zoneChecker(): { name: string; args: (zone: string, file: string) => string[] } | undefined {
  const onPath = (command: string) =>
    (process.env['PATH'] ?? '').split(path.delimiter).some((dir) => {
      try {
        fs.accessSync(path.join(dir, command), fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  if (onPath('kzonecheck')) return { name: 'kzonecheck', args: (zone, file) => ['-o', zone, file] };
  if (onPath('named-checkzone')) return { name: 'named-checkzone', args: (zone, file) => [zone, file] };
  return undefined;
}
