// Hostile bytes through the WAF engine with the Core Rule Set: seeded mutations of the benign
// corpus and of the attacks (stray escapes, control and high bytes, odd methods, repeated and
// strange headers, cookies of separators, JSON nested past the walk's depth or broken, urlencoded
// and multipart bodies with their framing bent, a body that says one type and is another). Each
// request must be inspected without throwing, and get the verdict, score and matched rules of the
// reference engine (every rule run in order on every value, nothing remembered: waf-plan.test.ts),
// the first time and again once its values and head are remembered. The plan, the value-wise hits,
// the memos and the head views are where a crafted request could find a difference; what the
// reference does is ModSecurity's reading of the rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from '../../../src/security/proxy/waf/engine.ts';
import type { WafRequest } from '../../../src/security/proxy/waf/request-fields.ts';
import { loadRuleSet, reference } from '../../../src/security/proxy/waf/rule-set.ts';
import { pick, seededRandom } from '../../support/prng.ts';
import { attacks, benignWafRequests, carrying, crsDir, haveCrs } from './waf-requests.ts';

if (!haveCrs) console.warn(`SKIPPED: the WAF fuzz test needs the Core Rule Set in ${crsDir} (apt-get install modsecurity-crs)`);

/** What mutations splice in: the bytes decoders and parsers meet at their edges. */
const hostile = [
  '%', '%2', '%zz', '%25', '%u', '%u00', '%u002e', '+', '&', '&&', '=', '==', ';', ',', "'", '"', '`', '<', '>', '</', '/*', '*/', '--', '#',
  '\\', '\\x', '../', '..\\', '\0', '\t', '\r', '\n', '\x7f', '\xff', '\xc3\xa9', '\xf0\x9f\x98\x80', '\xc3', '${', '{{', '}}', '()', '[]',
  'select', 'union', 'script', 'onerror', 'passwd', 'cmd.exe', 'eval(', 'json.', 'array_0', '__proto__', 'constructor', 'tx.0', '%{tx.0}',
];
/** What ordinary input holds: half the requests are bent with these only, most of them still passing. */
const mild = ['%20', '+', '&', '=', ',', '.', '-', '_', "'", 'é', '\xc3\xa9', 'O', 'Brien', 'page', '2', 'a b', '(1)', ':', '/', 'json', 'name'];
type Fragments = readonly string[];
const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'PROPFIND', 'TRACE', 'CONNECT', 'get', 'X'];
const headerNames = ['content-type', 'cookie', 'referer', 'user-agent', 'accept', 'x-forwarded-for', 'proxy', 'content-encoding', 'range', 'x-a', 'tx', 'host', 'accept-charset'];
const contentTypes = [
  'application/x-www-form-urlencoded', 'application/json', 'application/vnd.api+json', 'multipart/form-data; boundary=b', 'multipart/form-data; boundary="q q"',
  'multipart/form-data', 'text/plain', 'text/xml', 'application/json; charset=utf-7', 'APPLICATION/JSON', '',
];

type Random = () => number;
const someFragments = (random: Random, most: number, fragments: Fragments): string => Array.from({ length: 1 + Math.floor(random() * most) }, () => pick(random, fragments)).join('');

/** `text` with fragments spliced in (or bytes of it replaced). */
function bend(random: Random, text: string, fragments: Fragments): string {
  let out = text;
  for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
    const at = Math.floor(random() * (out.length + 1));
    out = random() < 0.7 ? out.slice(0, at) + someFragments(random, 3, fragments) + out.slice(at) : out.slice(0, at) + String.fromCharCode(Math.floor(random() * 256)) + out.slice(at + 1);
  }
  return out;
}

/** JSON nested `depth` deep, with keys and strings from the fragments. */
function nested(random: Random, depth: number, fragments: Fragments): unknown {
  if (depth === 0) return random() < 0.5 ? someFragments(random, 4, fragments) : Math.floor(random() * 1e6);
  return random() < 0.5 ? [nested(random, depth - 1, fragments), someFragments(random, 2, fragments)] : { [someFragments(random, 2, fragments)]: nested(random, depth - 1, fragments), n: null, t: true };
}

/** A body for a content type, well or badly framed. */
function body(random: Random, fragments: Fragments): { type: string; bytes: Buffer } {
  const type = pick(random, contentTypes);
  const kind = Math.floor(random() * 5);
  let text: string;
  if (kind === 0) text = JSON.stringify(nested(random, Math.floor(random() * 40), fragments));
  else if (kind === 1) text = JSON.stringify(nested(random, 3, fragments)).slice(0, -1 - Math.floor(random() * 5));
  else if (kind === 2) text = Array.from({ length: Math.floor(random() * 100) }, () => `${someFragments(random, 2, fragments)}=${someFragments(random, 3, fragments)}`).join(pick(random, ['&', '&&', ';']));
  else if (kind === 3) {
    const parts = Array.from({ length: Math.floor(random() * 4) }, () => {
      const file = random() < 0.3 ? `; filename="${someFragments(random, 2, fragments)}"` : '';
      return `--b\r\nContent-Disposition: form-data; name="${someFragments(random, 2, fragments)}"${file}\r\n${random() < 0.3 ? 'Content-Type: text/html\r\n' : ''}\r\n${someFragments(random, 4, fragments)}\r\n`;
    });
    text = `${parts.join('')}${random() < 0.7 ? '--b--\r\n' : ''}`;
  } else text = someFragments(random, 20, fragments);
  return { type, bytes: Buffer.from(text, random() < 0.5 ? 'latin1' : 'utf8') };
}

/** The header block the proxy's HTTP/1 parser keys a head by: the lines of `headers` as sent. */
const blockOf = (headers: string[]): string => headers.flatMap((value, i) => (i % 2 === 0 ? [`${value}: ${headers[i + 1] ?? ''}`] : [])).join('\r\n');

/** One mutation of `base`. */
function mutate(random: Random, base: WafRequest): WafRequest {
  const fragments = random() < 0.5 ? mild : hostile;
  const req: WafRequest = { ...base, headers: [...base.headers] };
  for (let n = 1 + Math.floor(random() * 4); n > 0; n--) {
    switch (Math.floor(random() * 8)) {
      case 0:
        req.url = bend(random, req.url, fragments);
        break;
      case 1:
        req.url = `${req.url}${req.url.includes('?') ? '&' : '?'}${Array.from({ length: 1 + Math.floor(random() * 80) }, () => `${someFragments(random, 2, fragments)}=${someFragments(random, 2, fragments)}`).join('&')}`;
        break;
      case 2:
        req.headers.push(pick(random, headerNames), someFragments(random, 5, fragments));
        break;
      case 3: {
        const at = 2 * Math.floor(random() * (req.headers.length / 2));
        if (req.headers[at + 1] !== undefined) req.headers[at + 1] = bend(random, req.headers[at + 1] ?? '', fragments);
        break;
      }
      case 4:
        req.headers.push('cookie', Array.from({ length: 1 + Math.floor(random() * 30) }, () => someFragments(random, 2, fragments)).join(pick(random, [';', '; ', '=', ';;'])));
        break;
      case 5: {
        const { type, bytes } = body(random, fragments);
        req.method = random() < 0.8 ? 'POST' : pick(random, methods);
        // The content type replaced: the body processor is chosen by it.
        const pairs = req.headers.flatMap((value, i) => (i % 2 === 0 && value !== 'content-type' ? [value, req.headers[i + 1] ?? ''] : []));
        req.headers = [...pairs, 'content-type', type];
        req.body = bytes;
        break;
      }
      case 6:
        req.protocol = pick(random, ['HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/0.9', 'HTTP/3']);
        break;
      default:
        req.method = pick(random, methods);
    }
  }
  // As the proxy's HTTP/1 requests carry it (head views key on it), whose parser refuses a line
  // break inside a field; some without, as HTTP/2's.
  req.headerBlock = random() < 0.8 && !req.headers.some((field) => /[\r\n]/.test(field)) ? blockOf(req.headers) : undefined;
  return req;
}

test('hostile requests through the Core Rule Set: never a throw, and the verdict of every rule run on every value', { skip: !haveCrs && `no Core Rule Set in ${crsDir}`, timeout: 120_000 }, () => {
  const tuned = loadRuleSet(crsDir);
  const everyRule = loadRuleSet(crsDir, reference);
  const bases = [...benignWafRequests(), ...attacks.flatMap(carrying)];
  const random = seededRandom(20261129);
  const requests = Array.from({ length: 1000 }, () => mutate(random, pick(random, bases)));
  // As deployed (the first rule that takes the score to the threshold denies, and nothing after it
  // runs), and with a threshold no request reaches, so that every rule's outcome is compared.
  for (const threshold of [5, 100_000]) {
    const settings = { paranoia: 1, threshold, budgetMs: Infinity };
    // The reference remembers nothing: its verdict is the same each time a request is asked.
    const expected = requests.map((req) => inspect(everyRule, req, settings));
    const denied = expected.filter((v) => v.denied).length;
    // Four times: the second time its values are remembered (from their second sighting, value-memo.ts)
    // and its head has its view, the third its verdict is kept, the fourth answered (verdict-memo.ts).
    for (let pass = 0; pass < 4; pass++) {
      requests.forEach((req, i) => {
        assert.deepEqual(inspect(tuned, req, settings), expected[i], `threshold ${String(threshold)}: ${req.method} ${JSON.stringify(req.url)} ${JSON.stringify(req.headers)} ${JSON.stringify(req.body.toString('latin1'))}`);
      });
    }
    // Bent attacks still refused, bent ordinary requests still passing: the mutations keep both kinds.
    if (threshold === 5) assert.ok(denied > 50 && denied < requests.length - 50, `${String(denied)} of ${String(requests.length)} denied`);
  }
});
