// BIND zone files: the lexer (comments, parentheses, quotes, escapes), the parser (directives,
// owners, TTL defaults, SOA, errors with line numbers) and the writer, checked by a round trip.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { parseZoneFile } from '../../src/dns/zonefile/parse.ts';
import type { ParsedZone } from '../../src/dns/zonefile/parse.ts';
import { tokenizeZoneFile } from '../../src/dns/zonefile/tokenize.ts';
import { writeZoneFile } from '../../src/dns/zonefile/write.ts';
import type { ZoneForExport } from '../../src/dns/zonefile/write.ts';

const run = promisify(execFile);

/** Records as [name, ttl, type, rdata values] for compact assertions. */
function summary(parsed: ParsedZone): [string, number, string, string[]][] {
  return parsed.records.map((r) => [r.name, r.ttl, r.type, r.rdata.map((t) => t.value)]);
}

function parseClean(text: string, origin = 'example.com'): ParsedZone {
  const parsed = parseZoneFile(text, origin);
  assert.deepEqual(parsed.errors, []);
  return parsed;
}

describe('zone file lexer', () => {
  test('comments, parentheses over lines, blank-owner flag and start lines', () => {
    const { entries, errors } = tokenizeZoneFile('; header\nwww A 192.0.2.1 ; trailing\n\n  MX ( 10\n  mail ) ; x\n');
    assert.deepEqual(errors, []);
    assert.deepEqual(
      entries.map((e) => [e.line, e.blankOwner, e.tokens.map((t) => t.value)]),
      [
        [2, false, ['www', 'A', '192.0.2.1']],
        [4, true, ['MX', '10', 'mail']],
      ],
    );
  });

  test('quoted strings keep ";", spaces and parentheses; escapes in and out of quotes', () => {
    const { entries, errors } = tokenizeZoneFile('t TXT "a; (b) \\"c\\" \\\\ \\x" un\\ quoted \\065\\066 "\\000\\255"\n');
    assert.deepEqual(errors, []);
    assert.deepEqual(entries[0]!.tokens.slice(2), [
      { value: 'a; (b) "c" \\ x', quoted: true, escaped: true },
      { value: 'un quoted', quoted: false, escaped: true },
      { value: 'AB', quoted: false, escaped: true },
      { value: '\x00\xff', quoted: true, escaped: true },
    ]);
  });

  test('literal UTF-8 becomes octets, as \\DDD would', () => {
    const { entries } = tokenizeZoneFile('t TXT "é€" "\\195\\169"\n');
    const [literal, escaped] = entries[0]!.tokens.slice(2);
    assert.equal(literal!.value, '\xc3\xa9\xe2\x82\xac');
    assert.equal(escaped!.value, '\xc3\xa9');
    assert.equal(Buffer.from(literal!.value, 'latin1').toString('utf8'), 'é€');
  });

  test('bad escapes are errors with their line', () => {
    assert.deepEqual(tokenizeZoneFile('a A 1\nb TXT "\\256"\nc TXT \\12x\n').errors, [
      { line: 2, message: 'escape "\\256" is above 255' },
      { line: 3, message: 'escape "\\12x" needs three decimal digits' },
    ]);
  });
});

describe('zone file parser', () => {
  test('classic multi-line SOA with comments', () => {
    const parsed = parseClean(`$TTL 1h
@   IN  SOA ns1.example.com. hostmaster ( ; primary, contact
        2024010101 ; serial
        2h         ; refresh
        15m        ; retry
        1w         ; expiry
        300 )      ; minimum
    IN  NS  ns1
`);
    assert.deepEqual(parsed.soa, {
      line: 2,
      name: 'example.com',
      ttl: 3600,
      primary_server: 'ns1.example.com',
      contact: 'hostmaster.example.com',
      serial: 2024010101,
      refresh: 7200,
      retry: 900,
      expiry: 604800,
      minimum: 300,
    });
    assert.deepEqual(summary(parsed), [['example.com', 3600, 'NS', ['ns1']]]);
    assert.equal(parsed.records[0]!.line, 8);
  });

  test('@, relative and absolute owners, owner inheritance, wildcards, upper case in', () => {
    const parsed = parseClean(`$TTL 300
@ A 192.0.2.1
  AAAA 2001:db8::1
WWW.Example.COM. A 192.0.2.2
mail A 192.0.2.3
\tMX 10 mail
* TXT "any"
_sip._tcp SRV 0 5 5060 sip
`);
    assert.deepEqual(summary(parsed), [
      ['example.com', 300, 'A', ['192.0.2.1']],
      ['example.com', 300, 'AAAA', ['2001:db8::1']],
      ['www.example.com', 300, 'A', ['192.0.2.2']],
      ['mail.example.com', 300, 'A', ['192.0.2.3']],
      ['mail.example.com', 300, 'MX', ['10', 'mail']],
      ['*.example.com', 300, 'TXT', ['any']],
      ['_sip._tcp.example.com', 300, 'SRV', ['0', '5', '5060', 'sip']],
    ]);
    assert.deepEqual(parsed.records[5]!.rdata, [{ value: 'any', quoted: true }]);
  });

  test('$ORIGIN, absolute or relative to the current origin', () => {
    const parsed = parseClean(`$ORIGIN sub.example.com.
a 60 A 192.0.2.1
$ORIGIN deeper
@ 60 A 192.0.2.2
b 60 A 192.0.2.3
$ORIGIN example.com.
c 60 A 192.0.2.4
`);
    assert.deepEqual(
      parsed.records.map((r) => r.name),
      ['a.sub.example.com', 'deeper.sub.example.com', 'b.deeper.sub.example.com', 'c.example.com'],
    );
  });

  test('TTL units and defaults: $TTL, else the previous TTL, else the SOA minimum, else 3600', () => {
    assert.deepEqual(
      parseClean('a 1d2h A 192.0.2.1\nb A 192.0.2.2\n$TTL 1W\nc A 192.0.2.3\nd 90s A 192.0.2.4\ne 1h30m A 192.0.2.5\n').records.map((r) => r.ttl),
      [93600, 93600, 604800, 90, 5400],
    );
    const soaMinimum = parseClean('@ SOA ns1 hostmaster 1 2 3 4 120\nwww A 192.0.2.1\n');
    assert.equal(soaMinimum.soa!.ttl, 120);
    assert.equal(soaMinimum.records[0]!.ttl, 120);
    assert.equal(parseClean('www A 192.0.2.1\n').records[0]!.ttl, 3600);
  });

  test('TTL and class in either order before the type', () => {
    const parsed = parseClean('a 60 IN A 192.0.2.1\nb IN 70 A 192.0.2.2\nc in a 192.0.2.3\nd 80 TXT x\n');
    assert.deepEqual(
      parsed.records.map((r) => [r.name, r.ttl, r.type]),
      [
        ['a.example.com', 60, 'A'],
        ['b.example.com', 70, 'A'],
        ['c.example.com', 70, 'A'],
        ['d.example.com', 80, 'TXT'],
      ],
    );
  });

  test('unknown TYPE123 types are returned as they are', () => {
    const parsed = parseClean('x 60 TYPE123 \\# 2 abcd\n');
    assert.deepEqual(summary(parsed), [['x.example.com', 60, 'TYPE123', ['#', '2', 'abcd']]]);
  });

  test('errors carry the line; the entry is skipped and parsing goes on', () => {
    const parsed = parseZoneFile(
      [
        '$INCLUDE other.zone',
        'www.example.org. A 192.0.2.1',
        'a CH TXT "x"',
        'b IN TXT "unterminated',
        'c A 192.0.2.2',
        'd A ( 192.0.2.3',
        '  ) )',
        'e 1x A 192.0.2.4',
        'f IN',
        '@ SOA ns1 hostmaster 1 2 3 4',
        'sub SOA ns1 hostmaster 1 2 3 4 5',
      ].join('\n'),
      'example.com',
    );
    assert.deepEqual(parsed.errors, [
      { line: 1, message: '$INCLUDE is not supported' },
      { line: 2, message: 'owner "www.example.org" is outside the zone example.com' },
      { line: 3, message: 'class CH is not supported; only IN' },
      { line: 4, message: 'unterminated quoted string' },
      { line: 7, message: 'unbalanced ")"' },
      { line: 8, message: '"1x" is not a TTL (seconds, or units such as 1h30m)' },
      { line: 9, message: 'record type is missing' },
      { line: 10, message: 'SOA needs 7 fields (primary server, contact, serial, refresh, retry, expiry, minimum), got 6' },
      { line: 11, message: 'the SOA record must be at the zone apex example.com' },
    ]);
    assert.deepEqual(summary(parsed), [['c.example.com', 3600, 'A', ['192.0.2.2']]]);
    assert.equal(parsed.soa, undefined);
  });

  test('blank-owner lines after an invalid owner are errors, not records of an older owner', () => {
    const parsed = parseZoneFile('a A 192.0.2.1\nbad..name A 192.0.2.2\n  AAAA 2001:db8::1\n', 'example.com');
    assert.deepEqual(
      parsed.errors.map((e) => e.line),
      [2, 3],
    );
    assert.equal(parsed.records.length, 1);
  });

  test('an unclosed parenthesis is reported at the line that opened it', () => {
    const parsed = parseZoneFile('a A 192.0.2.1\nb MX ( 10\n mail\nc A 192.0.2.2\n', 'example.com');
    assert.deepEqual(parsed.errors, [{ line: 2, message: 'unbalanced "(": it is never closed' }]);
    assert.equal(parsed.records.length, 1);
  });

  test('size limits: over 10 MiB or 100,000 entries is refused with one error', () => {
    const big = parseZoneFile(`a TXT "${'x'.repeat(10 * 1024 * 1024)}"\n`, 'example.com');
    assert.deepEqual(big, { records: [], errors: [{ line: 1, message: 'the zone file is larger than 10 MiB' }] });
    const many = parseZoneFile('a A 192.0.2.1\n'.repeat(100_001), 'example.com');
    assert.deepEqual(many, { records: [], errors: [{ line: 1, message: 'the zone file has more than 100000 entries' }] });
    assert.equal(parseClean('a A 192.0.2.1\n'.repeat(100_000)).records.length, 100_000);
  });
});

describe('zone file writer', () => {
  const zone: ZoneForExport = {
    name: 'example.com',
    ttl: 3600,
    soa: { primary_server: 'ns1.example.com', contact: 'hostmaster.example.com.', serial: 2024010101, refresh: 7200, retry: 900, expiry: 1209600, nx_ttl: 300, ttl: 3600 },
    rrsets: [
      { name: 'www.example.com', type: 'AAAA', ttl: 300, rdata: ['2001:db8::1'] },
      { name: '_sip._tcp.example.com', type: 'SRV', ttl: 600, rdata: ['10 5 5060 sip.example.com.'] },
      { name: 'www.example.com', type: 'A', ttl: 300, rdata: ['192.0.2.1', '192.0.2.2'] },
      { name: 'example.com', type: 'TXT', ttl: 3600, rdata: ['"a \\"b\\" c"', '"v=spf1 -all"'] },
      { name: '*.example.com', type: 'A', ttl: 60, rdata: ['192.0.2.9'] },
      { name: 'example.com', type: 'MX', ttl: 3600, rdata: ['10 mail.example.com.'] },
      { name: 'example.com', type: 'NS', ttl: 86400, rdata: ['ns1.example.com.', 'ns2.example.net.'] },
      { name: 'mail.example.com', type: 'A', ttl: 300, rdata: ['192.0.2.25'] },
    ],
  };

  test('SOA first, then the apex NS, then RRsets in name and type order', () => {
    const lines = writeZoneFile(zone).split('\n');
    assert.match(lines[0]!, /^; /);
    assert.deepEqual(lines.slice(1, 4), [
      '$ORIGIN example.com.',
      '$TTL 3600',
      '@\t3600\tIN\tSOA\tns1.example.com. hostmaster.example.com. 2024010101 7200 900 1209600 300',
    ]);
    assert.deepEqual(
      lines.slice(4).filter(Boolean).map((line) => line.split('\t').slice(0, 4).join(' ')),
      [
        '@ 86400 IN NS',
        '@ 86400 IN NS',
        '@ 3600 IN MX',
        '@ 3600 IN TXT',
        '@ 3600 IN TXT',
        '* 60 IN A',
        '_sip._tcp 600 IN SRV',
        'mail 300 IN A',
        'www 300 IN A',
        'www 300 IN A',
        'www 300 IN AAAA',
      ],
    );
  });

  test('round trip: what is written parses back to the same names, types, TTLs and rdata', () => {
    const parsed = parseClean(writeZoneFile(zone));
    assert.deepEqual(parsed.soa, {
      line: 4,
      name: 'example.com',
      ttl: 3600,
      primary_server: 'ns1.example.com',
      contact: 'hostmaster.example.com',
      serial: 2024010101,
      refresh: 7200,
      retry: 900,
      expiry: 1209600,
      minimum: 300,
    });
    const key = (r: [string, number, string, string[]]): string => JSON.stringify(r);
    const expected = zone.rrsets.flatMap((rrset) =>
      rrset.rdata.map((rdata): [string, number, string, string[]] => [rrset.name, rrset.ttl, rrset.type, tokenizeZoneFile(rdata).entries[0]!.tokens.map((t) => t.value)]),
    );
    assert.deepEqual(summary(parsed).map(key).sort(), expected.map(key).sort());
    const txt = parsed.records.find((r) => r.type === 'TXT')!;
    assert.deepEqual(txt.rdata, [{ value: 'a "b" c', quoted: true }]);
  });

  test('a written zone passes kzonecheck or named-checkzone when one is installed', async (t) => {
    const checkers: [string, (file: string) => string[]][] = [
      ['kzonecheck', (file) => ['-o', 'example.com', file]],
      ['named-checkzone', (file) => ['example.com', file]],
    ];
    const dir = await mkdtemp(join(tmpdir(), 'zonefile-'));
    try {
      const file = join(dir, 'example.com.zone');
      await writeFile(file, writeZoneFile(zone));
      let checked = false;
      for (const [command, args] of checkers) {
        try {
          await run(command, args(file));
          checked = true;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
      if (!checked) t.skip('neither kzonecheck nor named-checkzone is installed');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
