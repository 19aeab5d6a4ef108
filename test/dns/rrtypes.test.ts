// Record type modules: validation and canonical content, zone-file text in both directions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { a } from '../../src/dns/rrtypes/a.ts';
import { aaaa } from '../../src/dns/rrtypes/aaaa.ts';
import { caa } from '../../src/dns/rrtypes/caa.ts';
import { cname } from '../../src/dns/rrtypes/cname.ts';
import { ds } from '../../src/dns/rrtypes/ds.ts';
import { https } from '../../src/dns/rrtypes/https.ts';
import { recordType, recordTypes } from '../../src/dns/rrtypes/index.ts';
import { mx } from '../../src/dns/rrtypes/mx.ts';
import { ns } from '../../src/dns/rrtypes/ns.ts';
import { ptr } from '../../src/dns/rrtypes/ptr.ts';
import { ContentError, type ContentValue, type RecordType, type ZoneToken } from '../../src/dns/rrtypes/record-type.ts';
import { srv } from '../../src/dns/rrtypes/srv.ts';
import { svcb } from '../../src/dns/rrtypes/svcb.ts';
import { txt } from '../../src/dns/rrtypes/txt.ts';

const zone = 'example.com';

/** Whitespace-separated words and quoted strings, the latter unescaped (\DDD → the character with that code). */
function tokens(text: string): ZoneToken[] {
  return [...text.matchAll(/"((?:[^"\\]|\\.)*)"|[^\s"]+/g)].map(([word, quoted]) =>
    quoted === undefined
      ? { value: word, quoted: false }
      : { value: quoted.replace(/\\(\d{3}|.)/g, (_, escaped: string) => (escaped.length === 3 ? String.fromCharCode(Number(escaped)) : escaped)), quoted: true },
  );
}

function accepts(type: RecordType, cases: [input: unknown[], canonical: ContentValue[]][]) {
  for (const [input, canonical] of cases) assert.deepEqual(type.parse(input, zone), canonical, JSON.stringify(input));
}

function rejects(type: RecordType, cases: [input: unknown[], message: RegExp][]) {
  for (const [input, message] of cases) {
    assert.throws(
      () => type.parse(input, zone),
      (error: unknown) => error instanceof ContentError && message.test(error.message),
      `${JSON.stringify(input)} should fail with ${message}`,
    );
  }
}

/** parse → toText → tokens → fromText → parse gives the same content; returns the text. */
function roundTrip(type: RecordType, input: unknown[]): string {
  const canonical = type.parse(input, zone);
  const text = type.toText(canonical);
  assert.deepEqual(type.parse(type.fromText(tokens(text), zone), zone), canonical, text);
  return text;
}

describe('A', () => {
  test('valid addresses are kept', () => {
    accepts(a, [
      [['192.0.2.1'], ['192.0.2.1']],
      [['0.0.0.0'], ['0.0.0.0']],
      [['255.255.255.255'], ['255.255.255.255']],
    ]);
  });

  test('invalid content names the field', () => {
    rejects(a, [
      [['010.1.1.1'], /^A address must be an IPv4 address in dotted-quad form, got "010\.1\.1\.1"$/],
      [['256.1.1.1'], /A address/],
      [['1.2.3'], /A address/],
      [['2001:db8::1'], /A address/],
      [[3221225985], /A address/],
      [[], /^A content must be \[address\], got 0 elements$/],
      [['192.0.2.1', '192.0.2.2'], /A content must be \[address\]/],
    ]);
  });

  test('round trip', () => {
    assert.equal(roundTrip(a, ['192.0.2.1']), '192.0.2.1');
  });
});

describe('AAAA', () => {
  test('addresses become RFC 5952 text', () => {
    accepts(aaaa, [
      [['2001:DB8:0:0:0:0:0:1'], ['2001:db8::1']],
      [['2001:db8:0:0:1:0:0:1'], ['2001:db8::1:0:0:1']],
      [['2001:0:0:1:0:0:0:1'], ['2001:0:0:1::1']],
      [['2001:db8:0:1:1:1:1:1'], ['2001:db8:0:1:1:1:1:1']],
      [['0001::'], ['1::']],
      [['::1'], ['::1']],
      [['::ffff:192.0.2.1'], ['::ffff:192.0.2.1']],
      [['::1.2.3.4'], ['::102:304']],
    ]);
  });

  test('invalid content names the field', () => {
    rejects(aaaa, [
      [['192.0.2.1'], /^AAAA address must be an IPv6 address, got "192\.0\.2\.1"$/],
      [['fe80::1%eth0'], /AAAA address/],
      [['garbage'], /AAAA address/],
      [['1::2::3'], /AAAA address/],
      [['12345::'], /AAAA address/],
      [[null], /AAAA address must be an IPv6 address, got null/],
      [[], /AAAA content must be \[address\]/],
    ]);
  });

  test('round trip', () => {
    assert.equal(roundTrip(aaaa, ['2001:DB8::0:1']), '2001:db8::1');
  });
});

for (const type of [cname, ns, ptr]) {
  describe(type.type, () => {
    test('targets become lower case A-labels, the trailing dot kept as sent', () => {
      accepts(type, [
        [['www.example.net.'], ['www.example.net.']],
        [['WWW.Example.NET'], ['www.example.net']],
        [['bücher.example'], ['xn--bcher-kva.example']],
        [['Bücher.example.'], ['xn--bcher-kva.example.']],
        [['_acme-challenge.example.org'], ['_acme-challenge.example.org']],
      ]);
    });

    test('invalid content names the field', () => {
      const field = `${type.type} target`;
      rejects(type, [
        [['.'], new RegExp(`^${field} must not be the root "\\."$`)],
        [['*.example.com'], new RegExp(`^${field} is not a valid host name: a wildcard is not allowed here$`)],
        [[''], new RegExp(`^${field} is not a valid host name`)],
        [['a..example'], new RegExp(`^${field} is not a valid host name`)],
        [['-bad.example'], new RegExp(`^${field} is not a valid host name`)],
        [[42], new RegExp(`^${field} must be a host name, got 42$`)],
        [['a.example', 'b.example'], new RegExp(`^${type.type} content must be \\[target\\], got 2 elements$`)],
      ]);
    });

    test('zone-file text is fully qualified; relative names resolve against the origin', () => {
      assert.equal(type.toText(['www.example.net']), 'www.example.net.');
      assert.equal(type.toText(['www.example.net.']), 'www.example.net.');
      assert.deepEqual(type.fromText(tokens('www'), zone), ['www.example.com']);
      assert.deepEqual(type.fromText(tokens('@'), zone), ['example.com']);
      assert.deepEqual(type.fromText(tokens('host.example.net.'), zone), ['host.example.net']);
      assert.throws(() => type.fromText(tokens('a. b.'), zone), ContentError);
    });

    test('round trip', () => {
      assert.equal(roundTrip(type, ['Host.Example.net']), 'host.example.net.');
      assert.equal(roundTrip(type, ['bücher.example']), 'xn--bcher-kva.example.');
    });
  });
}

test('a name sent with a trailing dot comes back from zone-file text without one', () => {
  const text = cname.toText(cname.parse(['www.example.net.'], zone));
  assert.deepEqual(cname.parse(cname.fromText(tokens(text), zone), zone), ['www.example.net']);
});

describe('MX', () => {
  test('valid content', () => {
    accepts(mx, [
      [[10, 'mail.example.com.'], [10, 'mail.example.com.']],
      [['10', 'Mail.Example.com'], [10, 'mail.example.com']],
      [[0, '.'], [0, '.']],
      [['65535', 'mx.bücher.example'], [65535, 'mx.xn--bcher-kva.example']],
    ]);
  });

  test('invalid content names the field', () => {
    rejects(mx, [
      [['x', 'mail.example.com'], /^MX preference must be an integer 0-65535, got "x"$/],
      [[65536, 'mail.example.com'], /^MX preference must be an integer 0-65535, got 65536$/],
      [[-1, 'mail.example.com'], /MX preference/],
      [[1.5, 'mail.example.com'], /MX preference/],
      [['1e3', 'mail.example.com'], /MX preference/],
      [[10, '*.example.com'], /^MX exchange is not a valid host name/],
      [[10, 5], /^MX exchange must be a host name, got 5$/],
      [[10], /^MX content must be \[preference, exchange\], got 1 element$/],
    ]);
  });

  test('zone-file text', () => {
    assert.equal(mx.toText([10, 'mail.example.com']), '10 mail.example.com.');
    assert.deepEqual(mx.parse(mx.fromText(tokens('20 mail'), zone), zone), [20, 'mail.example.com']);
    assert.throws(() => mx.fromText(tokens('10'), zone), /MX zone-file data must be \[preference, exchange\], got 1 element/);
  });

  test('round trip', () => {
    assert.equal(roundTrip(mx, [10, 'mail.example.com']), '10 mail.example.com.');
    assert.equal(roundTrip(mx, [0, '.']), '0 .');
  });
});

describe('TXT', () => {
  test('one string, kept as sent', () => {
    accepts(txt, [
      [['v=spf1 -all'], ['v=spf1 -all']],
      [[''], ['']],
      [['"quoted" and \\back\\slashed'], ['"quoted" and \\back\\slashed']],
      [['héllo ✓'], ['héllo ✓']],
      [['x'.repeat(65279)], ['x'.repeat(65279)]],
    ]);
  });

  test('invalid content names the field', () => {
    rejects(txt, [
      [[42], /^TXT text must be a string, got 42$/],
      [[], /^TXT content must be \[text\], got 0 elements$/],
      [['a', 'b'], /^TXT content must be \[text\], got 2 elements$/],
      [['bad \ud800'], /^TXT text must be valid Unicode text/],
      [['x'.repeat(65280)], /^TXT text is 65280 octets in UTF-8; at most 65279 fit in one record$/],
      [['é'.repeat(32640)], /^TXT text is 65280 octets/],
    ]);
  });

  test('zone-file text is quoted and escaped, 255 octets per string', () => {
    assert.equal(txt.toText(['v=spf1 -all']), '"v=spf1 -all"');
    assert.equal(txt.toText(['']), '""');
    assert.equal(txt.toText(['say "hi" \\o/']), '"say \\"hi\\" \\\\o/"');
    assert.equal(txt.toText(['héllo ✓\t']), '"h\\195\\169llo \\226\\156\\147\\009"');
    const long = txt.toText(['0123456789'.repeat(60)]);
    assert.deepEqual(tokens(long).map(({ value }) => value.length), [255, 255, 90]);
  });

  test('zone-file strings are joined; UTF-8 octets become text again', () => {
    assert.deepEqual(txt.fromText(tokens('"v=spf1 " -all'), zone), ['v=spf1 -all']);
    assert.deepEqual(txt.fromText([{ value: 'h\u00c3\u00a9', quoted: true }], zone), ['hé']);
    assert.deepEqual(txt.fromText([{ value: 'written ✓ literally', quoted: true }], zone), ['written ✓ literally']);
    assert.deepEqual(txt.fromText([{ value: 'not utf-8 \u00ff', quoted: true }], zone), ['not utf-8 ÿ']);
    assert.throws(() => txt.fromText([], zone), /TXT text is missing/);
  });

  test('round trip', () => {
    roundTrip(txt, ['v=spf1 include:_spf.example.com -all']);
    roundTrip(txt, ['']);
    roundTrip(txt, ['"quoted" \\ back\\slash \\"']);
    assert.equal(roundTrip(txt, ['héllo ✓']), '"h\\195\\169llo \\226\\156\\147"');
    assert.equal(tokens(roundTrip(txt, ['a'.repeat(600)])).length, 3);
    // 255 is odd: the first string ends in the middle of a two-octet character.
    assert.equal(tokens(roundTrip(txt, ['é'.repeat(300)])).length, 3);
    roundTrip(txt, ['\ufeffstarts with a byte order mark']);
  });
});

describe('SRV', () => {
  test('valid content', () => {
    accepts(srv, [
      [[10, 5, 5061, 'sip.example.com.'], [10, 5, 5061, 'sip.example.com.']],
      [['10', '5', '5061', 'SIP.Example.com'], [10, 5, 5061, 'sip.example.com']],
      [[0, 0, 0, '.'], [0, 0, 0, '.']],
    ]);
  });

  test('invalid content names the field', () => {
    rejects(srv, [
      [[-1, 5, 5061, 'sip.example.com'], /^SRV priority must be an integer 0-65535, got -1$/],
      [[10, 'w', 5061, 'sip.example.com'], /^SRV weight must be an integer 0-65535, got "w"$/],
      [[10, 5, 65536, 'sip.example.com'], /^SRV port must be an integer 0-65535, got 65536$/],
      [[10, 5, 5061, '*.example.com'], /^SRV target is not a valid host name/],
      [[10, 5, 5061], /^SRV content must be \[priority, weight, port, target\], got 3 elements$/],
    ]);
  });

  test('round trip', () => {
    assert.equal(roundTrip(srv, [10, 5, 5061, 'sip.example.com']), '10 5 5061 sip.example.com.');
    assert.equal(roundTrip(srv, [0, 0, 0, '.']), '0 0 0 .');
    assert.deepEqual(srv.fromText(tokens('1 2 3 sip'), zone), ['1', '2', '3', 'sip.example.com']);
  });
});

describe('CAA', () => {
  test('valid content', () => {
    accepts(caa, [
      [[0, 'issue', 'letsencrypt.org'], [0, 'issue', 'letsencrypt.org']],
      [['128', 'ISSUEWILD', ';'], [128, 'issuewild', ';']],
      [[0, 'iodef', 'mailto:security@example.com'], [0, 'iodef', 'mailto:security@example.com']],
      [[0, 'issue', ''], [0, 'issue', '']],
    ]);
  });

  test('invalid content names the field', () => {
    rejects(caa, [
      [[256, 'issue', 'ca.example'], /^CAA flags must be an integer 0-255, got 256$/],
      [[0, 'is-sue', 'ca.example'], /^CAA tag must be 1-15 ASCII letters or digits, got "is-sue"$/],
      [[0, '', 'ca.example'], /^CAA tag/],
      [[0, 'abcdefghijklmnop', 'ca.example'], /^CAA tag/],
      [[0, 'issue', 5], /^CAA value must be a string, got 5$/],
      [[0, 'issue', 'x'.repeat(65519)], /^CAA value is longer than 65518 octets/],
      [[0, 'issue'], /^CAA content must be \[flags, tag, value\], got 2 elements$/],
    ]);
  });

  test('round trip', () => {
    assert.equal(roundTrip(caa, [0, 'issue', 'letsencrypt.org']), '0 issue "letsencrypt.org"');
    assert.equal(roundTrip(caa, [0, 'issue', 'ca "x" \\ é']), '0 issue "ca \\"x\\" \\\\ \\195\\169"');
    assert.equal(roundTrip(caa, [128, 'tbs', '']), '128 tbs ""');
  });
});

describe('DS', () => {
  const sha256 = 'ab12cd34'.repeat(8);
  test('valid content: the digest in upper case, without white space', () => {
    accepts(ds, [
      [[12345, 13, 2, sha256], [12345, 13, 2, sha256.toUpperCase()]],
      [['12345', '8', '1', '0123456789 '.repeat(4)], [12345, 8, 1, '0123456789'.repeat(4)]],
      [[0, 14, 4, 'f'.repeat(96)], [0, 14, 4, 'F'.repeat(96)]],
      // Digest type 3 (GOST) has no length check here.
      [[1, 12, 3, 'abcd'], [1, 12, 3, 'ABCD']],
    ]);
  });

  test('invalid content names the field', () => {
    rejects(ds, [
      [[70000, 13, 2, sha256], /^DS key tag must be an integer 0-65535, got 70000$/],
      [[12345, 0, 2, sha256], /^DS algorithm must be an integer 1-255, got 0$/],
      [[12345, 13, 0, sha256], /^DS digest type must be an integer 1-255, got 0$/],
      [[12345, 13, 2, 'XYZ'], /^DS digest must be a non-empty string of hex octets, got "XYZ"$/],
      [[12345, 13, 2, 'abc'], /^DS digest must be a non-empty string/],
      [[12345, 13, 2, ''], /^DS digest must be a non-empty string/],
      [[12345, 13, 2, 'ab'.repeat(20)], /^DS digest must be 64 hex digits for digest type 2, got 40$/],
      [[12345, 13, 2], /^DS content must be \[key tag, algorithm, digest type, digest\], got 3 elements$/],
    ]);
  });

  test('zone files may split the digest into words', () => {
    assert.deepEqual(ds.parse(ds.fromText(tokens(`12345 13 2 ${sha256.slice(0, 32)} ${sha256.slice(32)}`), zone), zone), [12345, 13, 2, sha256.toUpperCase()]);
    assert.throws(() => ds.fromText(tokens('12345 13 2'), zone), /^Error: DS zone-file data must be/);
  });

  test('round trip', () => {
    assert.equal(roundTrip(ds, [12345, 13, 2, sha256]), `12345 13 2 ${sha256.toUpperCase()}`);
  });
});

describe('HTTPS and SVCB', () => {
  const everyKey = [
    1,
    'svc.example.net',
    ['dohpath', '/dns-query{?dns}'],
    ['key65000', 'opaque value'],
    ['IPv6Hint', '2001:DB8::1', '2001:db8:0:0:0:0:0:2'],
    ['ech', 'AEX+/w=='],
    ['ipv4hint', '192.0.2.1', '192.0.2.2'],
    ['port', '8443'],
    ['no-default-alpn'],
    ['alpn', 'h3', 'h2'],
    ['mandatory', 'port', 'alpn'],
  ];

  test('valid content: parameters sorted by key number, key names lower case', () => {
    accepts(https, [
      [[1, '.', ['alpn', 'h3', 'h2'], ['port', 443]], [1, '.', ['alpn', 'h3', 'h2'], ['port', 443]]],
      [[0, 'svc.example.net.'], [0, 'svc.example.net.']],
      [['1', 'Bücher.example', ['PORT', '8443'], ['ALPN', 'h2']], [1, 'xn--bcher-kva.example', ['alpn', 'h2'], ['port', 8443]]],
      [[2, '.', ['key1', 'h2'], ['key3', 53]], [2, '.', ['alpn', 'h2'], ['port', 53]]],
      [[1, '.', ['key65000', ''], ['key123']], [1, '.', ['key123'], ['key65000']]],
      [
        everyKey,
        [
          1,
          'svc.example.net',
          ['mandatory', 'alpn', 'port'],
          ['alpn', 'h3', 'h2'],
          ['no-default-alpn'],
          ['port', 8443],
          ['ipv4hint', '192.0.2.1', '192.0.2.2'],
          ['ech', 'AEX+/w=='],
          ['ipv6hint', '2001:db8::1', '2001:db8::2'],
          ['dohpath', '/dns-query{?dns}'],
          ['key65000', 'opaque value'],
        ],
      ],
    ]);
  });

  test('invalid content names the field', () => {
    rejects(https, [
      [[0, '.', ['alpn', 'h2']], /^HTTPS parameters are not allowed in AliasMode \(priority 0\)$/],
      [[70000, '.'], /^HTTPS priority must be an integer 0-65535, got 70000$/],
      [[1, '*.example.com'], /^HTTPS target is not a valid host name/],
      [[1], /^HTTPS content must be \[priority, target, \[key, values...\]...\], got 1 element$/],
      [[1, '.', 'alpn'], /^HTTPS parameter must be an array \[key, values...\], got "alpn"$/],
      [[1, '.', []], /^HTTPS parameter must be an array/],
      [[1, '.', ['foo', 'x']], /^HTTPS parameter key must be a known key name or keyNNNNN \(0-65535\), got "foo"$/],
      [[1, '.', ['key65536', 'x']], /^HTTPS parameter key must be/],
      [[1, '.', ['alpn', 'h2'], ['alpn', 'h3']], /^HTTPS parameter alpn appears twice$/],
      [[1, '.', ['alpn', 'h2'], ['key1', 'h3']], /^HTTPS parameter alpn appears twice$/],
      [[1, '.', ['alpn']], /^HTTPS alpn needs at least 1 value, got none$/],
      [[1, '.', ['alpn', '']], /^HTTPS alpn protocol ids must be 1-255 octets/],
      [[1, '.', ['alpn', 'h2,h3']], /^HTTPS alpn protocol ids/],
      [[1, '.', ['alpn', 2]], /^HTTPS alpn must be a string, got 2$/],
      [[1, '.', ['alpn', 'h2'], ['no-default-alpn', 'x']], /^HTTPS no-default-alpn takes no value, got 1$/],
      [[1, '.', ['no-default-alpn']], /^HTTPS no-default-alpn requires alpn$/],
      [[1, '.', ['port']], /^HTTPS port takes exactly 1 value, got 0$/],
      [[1, '.', ['port', 'x']], /^HTTPS port must be an integer 0-65535, got "x"$/],
      [[1, '.', ['port', 1, 2]], /^HTTPS port takes exactly 1 value, got 2$/],
      [[1, '.', ['ipv4hint', '::1']], /^HTTPS ipv4hint must be an IPv4 address/],
      [[1, '.', ['ipv6hint', '192.0.2.1']], /^HTTPS ipv6hint must be an IPv6 address/],
      [[1, '.', ['ech', 'not base64!']], /^HTTPS ech must be one base64 string/],
      [[1, '.', ['dohpath']], /^HTTPS dohpath takes exactly 1 value/],
      [[1, '.', ['mandatory', 'mandatory']], /^HTTPS mandatory must not list itself$/],
      [[1, '.', ['mandatory', 'port'], ['alpn', 'h2']], /^HTTPS mandatory lists port, which is not present$/],
      [[1, '.', ['mandatory', 'alpn', 'key1'], ['alpn', 'h2']], /^HTTPS mandatory lists alpn twice$/],
      [[1, '.', ['mandatory', 'bogus']], /^HTTPS mandatory lists an unknown key "bogus"$/],
      [[1, '.', ['key65000', 'a', 'b']], /^HTTPS key65000 takes at most 1 value, got 2$/],
    ]);
    rejects(svcb, [[[0, '.', ['alpn', 'h2']], /^SVCB parameters are not allowed in AliasMode/]]);
  });

  test('zone-file text', () => {
    assert.equal(https.toText([1, '.', ['alpn', 'h3', 'h2'], ['port', 443]]), '1 . alpn=h3,h2 port=443');
    assert.equal(
      https.toText(https.parse(everyKey, zone)),
      '1 svc.example.net. mandatory=alpn,port alpn=h3,h2 no-default-alpn port=8443 ipv4hint=192.0.2.1,192.0.2.2 ' +
        'ech=AEX+/w== ipv6hint=2001:db8::1,2001:db8::2 dohpath=/dns-query{?dns} key65000="opaque value"',
    );
    assert.deepEqual(https.fromText(tokens('1 svc alpn="h3,h2" port=443 no-default-alpn'), zone), [
      '1',
      'svc.example.com',
      ['alpn', 'h3', 'h2'],
      ['port', '443'],
      ['no-default-alpn'],
    ]);
    // A tokenizer that leaves the quotes inside the word.
    assert.deepEqual(https.fromText([{ value: '1', quoted: false }, { value: '.', quoted: false }, { value: 'alpn="h3,h2"', quoted: false }], zone), [
      '1',
      '.',
      ['alpn', 'h3', 'h2'],
    ]);
    assert.deepEqual(https.parse(https.fromText(tokens('1 . key1=h2 KEY3=53'), zone), zone), [1, '.', ['alpn', 'h2'], ['port', 53]]);
    assert.throws(() => https.fromText(tokens('1'), zone), /^Error: HTTPS zone-file data must start with priority and target/);
  });

  test('round trip', () => {
    roundTrip(https, everyKey);
    assert.equal(roundTrip(https, [0, 'svc.example.net']), '0 svc.example.net.');
    assert.equal(roundTrip(https, [1, '.', ['dohpath', '/q {?dns} "é"']]), '1 . dohpath="/q {?dns} \\"\\195\\169\\""');
    assert.equal(roundTrip(svcb, [1, 'svc.bücher.example', ['alpn', 'dot'], ['port', 853]]), '1 svc.xn--bcher-kva.example. alpn=dot port=853');
  });
});

describe('registry', () => {
  test('case-insensitive lookup by mnemonic', () => {
    assert.equal(recordType('MX'), mx);
    assert.equal(recordType('mx'), mx);
    assert.equal(recordType('Https'), https);
    assert.equal(recordType('svcb'), svcb);
  });

  test('SOA and unknown types are not RRset types', () => {
    assert.equal(recordType('SOA'), undefined);
    assert.equal(recordType('soa'), undefined);
    assert.equal(recordType('BOGUS'), undefined);
  });

  test('every type under its mnemonic with its IANA code', () => {
    assert.deepEqual(
      Object.fromEntries([...recordTypes].map(([name, type]) => [name, type.code])),
      { A: 1, AAAA: 28, CNAME: 5, NS: 2, PTR: 12, MX: 15, TXT: 16, SRV: 33, CAA: 257, HTTPS: 65, SVCB: 64, DS: 43 },
    );
    for (const [name, type] of recordTypes) assert.equal(type.type, name);
  });
});

test('AAAA: an IPv4-mapped address keeps its IPv4 part dotted (RFC 5952 §5)', () => {
  assert.deepEqual(recordType('AAAA')?.parse(['::FFFF:192.0.2.1'], 'example.com'), ['::ffff:192.0.2.1']);
  assert.deepEqual(recordType('AAAA')?.parse(['::ffff:c000:201'], 'example.com'), ['::ffff:192.0.2.1']);
});
