// The WAF's plan (rule-plan.ts), its value-wise hits (rule-hits.ts), its memos of values
// (value-memo.ts) and of verdicts (verdict-memo.ts): what a request no longer runs, and the proof that matters: with all of them,
// every request gets the verdict, score and matched rules it gets with every rule run in order on
// every value and nothing remembered.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { inspect, planOf } from '../../../src/security/proxy/waf/engine.ts';
import type { WafRequest } from '../../../src/security/proxy/waf/request-fields.ts';
import { isMarker, isPreset, type PlanItem } from '../../../src/security/proxy/waf/rule-plan.ts';
import { loadRuleSet, reference, type Rule } from '../../../src/security/proxy/waf/rule-set.ts';
import { ValueMemos } from '../../../src/security/proxy/waf/value-memo.ts';
import { attacks, benignWafRequests, carrying, crsDir, haveCrs, oddHeads } from './waf-requests.ts';

if (!haveCrs) console.warn(`SKIPPED: the plan's Core Rule Set test needs ${crsDir} (apt-get install modsecurity-crs)`);

// A rule set of the shapes CRS's initialisation, paranoia skips and checks have.
const rulesText = String.raw`
SecAction "id:900001,phase:1,pass,nolog,setvar:tx.limit=3"
SecRule &TX:mode "@eq 0" "id:900002,phase:1,pass,nolog,setvar:tx.mode=strict"
SecRule TX:mode "@streq off" "id:900003,phase:1,pass,nolog,skipAfter:END-CHECKS"
SecRule REQUEST_HEADERS:User-Agent "@rx ^.*$" "id:900004,phase:1,pass,nolog,t:none,t:sha1,t:hexEncode,setvar:tx.ua_hash=%{MATCHED_VAR}"
SecRule TX:mode "@streq lax" "id:900005,phase:1,pass,nolog,chain,skipAfter:END-CHECKS"
    SecRule REQUEST_METHOD "@streq GET" "t:none"
SecRule TX:limit "@lt 2" "id:900006,phase:1,pass,nolog,skipAfter:END-CHECKS"
SecRule ARGS "@rx attack" "id:941901,phase:2,block,msg:'attack',setvar:tx.anomaly_score=+5"
SecRule REQUEST_HEADERS:X-Level "@rx ^\d+$" "id:900007,phase:2,pass,nolog,capture,setvar:tx.level=%{tx.0}"
SecRule TX:level "@gt %{tx.limit}" "id:941902,phase:2,block,msg:'level',setvar:tx.anomaly_score=+5"
SecMarker END-CHECKS
SecAction "id:900008,phase:2,pass,nolog,setvar:tx.after=1"
SecRule TX:anomaly_score "@ge 5" "id:949901,phase:2,deny,msg:'blocked'"
`;

/** A rule set's directory holding `text` as its one request rule file. */
function ruleSetWith(text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-waf-plan-'));
  fs.writeFileSync(path.join(dir, 'REQUEST-900-TEST.conf'), text);
  return dir;
}

const ruleSetDir = (): string => ruleSetWith(rulesText);

const request = (url: string, headers: string[] = []): WafRequest => ({
  method: 'GET',
  url,
  protocol: 'HTTP/1.1',
  headers: ['host', 'shop.example', 'user-agent', 'curl/8.5.0', ...headers],
  client: '198.51.100.7',
  body: Buffer.alloc(0),
  id: 'x',
});

const ids = (plan: PlanItem[]): number[] => plan.flatMap((item) => (isMarker(item) || isPreset(item) ? [] : [item.id]));
const presets = (plan: PlanItem[]): [string, string | undefined][] => plan.flatMap((item) => (isPreset(item) ? item.preset : []));

test('the plan runs only the rules that read the request, the others worked out once as presets in their place', () => {
  const rules = loadRuleSet(ruleSetDir());
  const [phase1 = [], phase2 = []] = planOf(rules, { paranoia: 1, threshold: 5, budgetMs: Infinity });
  // 900001-900003 and 900006 read only TX: run at plan time. 900004 writes what nothing reads.
  // 900005's check of TX fails at these settings: its chain can never match.
  assert.deepEqual(ids(phase1), []);
  assert.deepEqual(presets(phase1), [
    ['limit', '3'],
    ['mode', 'strict'],
  ]);
  // 941902 reads what 900007 captured from the request; 900008 comes after them, a preset in its place.
  assert.deepEqual(ids(phase2), [941901, 900007, 941902, 949901]);
  assert.deepEqual(presets(phase2), [['after', '1']]);
  const denied = inspect(rules, request('/?q=attack'), { paranoia: 1, threshold: 5, budgetMs: Infinity });
  assert.deepEqual([denied.denied, denied.matched], [true, [941901]]);
  const level = inspect(rules, request('/', ['x-level', '4']), { paranoia: 1, threshold: 5, budgetMs: Infinity });
  assert.deepEqual([level.denied, level.matched], [true, [941902]]);
  assert.equal(inspect(rules, request('/', ['x-level', '2']), { paranoia: 1, threshold: 5, budgetMs: Infinity }).denied, false);
});

test('a rule a request rule may skip stays in the plan, and so does what reads its writes', () => {
  // 900005 reads the request instead, so whether it skips is the request's; 900009 after it sets
  // what 941903 reads. 900006 may be skipped too, but cannot match at these settings.
  const dir = ruleSetDir();
  const file = path.join(dir, 'REQUEST-900-TEST.conf');
  const text = fs
    .readFileSync(file, 'utf8')
    .replace('SecRule TX:mode "@streq lax" "id:900005', 'SecRule REQUEST_METHOD "@streq PUT" "id:900005')
    .replace('SecRule REQUEST_METHOD "@streq GET"', 'SecRule REQUEST_LINE "@rx ^PUT "')
    .replace('SecRule TX:limit', 'SecAction "id:900009,phase:1,pass,nolog,setvar:tx.skippable=1"\nSecRule TX:limit')
    .replace('SecMarker END-CHECKS', 'SecMarker END-CHECKS\nSecRule TX:skippable "@eq 1" "id:941903,phase:2,block,msg:\'not skipped\',setvar:tx.anomaly_score=+5"');
  fs.writeFileSync(file, text);
  const rules = loadRuleSet(dir);
  const [phase1 = [], phase2 = []] = planOf(rules, { paranoia: 1, threshold: 5, budgetMs: Infinity });
  assert.deepEqual(ids(phase1), [900005, 900009]);
  assert.deepEqual(ids(phase2), [941901, 900007, 941902, 941903, 949901]);
  const everyRule = loadRuleSet(dir, reference);
  const settings = { paranoia: 1, threshold: 5, budgetMs: Infinity };
  for (const method of ['GET', 'PUT']) {
    for (const url of ['/?q=attack', '/']) {
      const req = { ...request(url, ['x-level', '9']), method };
      assert.deepEqual(inspect(rules, req, settings), inspect(everyRule, req, settings), `${method} ${url}`);
    }
  }
  assert.deepEqual(inspect(rules, { ...request('/'), method: 'GET' }, settings).matched, [941903]);
  assert.deepEqual(inspect(rules, { ...request('/'), method: 'PUT' }, settings).matched, []);
});

test('the value memo keeps a value the second time it comes, at most its capacity, evicting the oldest, and no value longer than its limit', () => {
  const memos = new ValueMemos(3, 8);
  assert.equal(memos.of('a'), undefined, 'a value seen once is not kept');
  const a = memos.of('a');
  assert.ok(a !== undefined, 'seen twice, it is');
  assert.equal(memos.of('a'), a, 'the same value, the same memo');
  for (const value of ['b', 'c', 'd']) for (let i = 0; i < 2; i++) memos.of(value);
  assert.equal(memos.size, 3);
  assert.notEqual(memos.of('a'), a, 'the oldest was evicted');
  for (let i = 0; i < 100; i++) memos.of(`once${String(i)}`);
  assert.equal(memos.size, 3, 'values seen once take no memo');
  assert.ok(memos.of('d') !== undefined, 'nor evict one');
  for (let i = 0; i < 2; i++) assert.equal(memos.of('123456789'), undefined);
  for (let i = 0; i < 2; i++) assert.equal(new ValueMemos(0, 8).of('a'), undefined);
});

test("a request's head is kept the second time it comes: its fields and what they match are shared by the requests sending it", () => {
  const rules = loadRuleSet(ruleSetDir());
  const settings = { paranoia: 1, threshold: 5, budgetMs: Infinity };
  const levelled = (level: string, url = '/') => request(url, ['x-level', level]);
  // X-Level over tx.limit (3) is refused by 941902, whatever the target.
  for (let pass = 0; pass < 3; pass++) {
    assert.equal(inspect(rules, levelled('9', `/?n=${String(pass)}`), settings).denied, true, `pass ${String(pass)}`);
    assert.equal(inspect(rules, levelled('1', `/?n=${String(pass)}`), settings).denied, false, `pass ${String(pass)}`);
  }
  assert.equal(rules.memos.heads.size, 2, 'two heads, each kept');
  // A head differing only in the case of a value, or in a field's order, is another head.
  assert.equal(inspect(rules, request('/', ['x-level', '1', 'accept', '*/*']), settings).denied, false);
  assert.equal(inspect(rules, request('/', ['accept', '*/*', 'x-level', '9']), settings).denied, true);
  // A head the parsers would refuse (a line feed in a value) is never kept: it could share a key with another.
  const odd = request('/', ['x-note', 'a\nx-level: 1', 'x-level', '9']);
  for (let pass = 0; pass < 3; pass++) assert.equal(inspect(rules, odd, settings).denied, true);
  assert.equal(rules.memos.heads.size, 2);
  // Bounded: a stream of new heads evicts the oldest, each kept only when it comes again.
  for (let i = 0; i < 1000; i++) for (let twice = 0; twice < 2; twice++) inspect(rules, request('/', ['x-id', String(i)]), settings);
  assert.equal(rules.memos.heads.size, 256);
});

test('a chain reading only the head replays what it did the first time; not when the TX it selects held something before it', () => {
  const dir = ruleSetWith(
    String.raw`
SecAction "id:900001,phase:1,pass,nolog,setvar:'tx.restricted=/x-evil/ /proxy/',setvar:'tx.allowed=GET POST'"
SecRule ARGS:pre "@streq 1" "id:900002,phase:1,pass,nolog,setvar:tx.hn_x-evil=/x-evil/"
SecRule ARGS:strict "@streq 1" "id:900003,phase:1,pass,nolog,setvar:tx.allowed=GET"
SecRule REQUEST_HEADERS_NAMES "@rx ^.*$" "id:920901,phase:2,block,capture,t:none,t:lowercase,setvar:'tx.hn_%{tx.0}=/%{tx.0}/',chain"
    SecRule TX:/^HN_/ "@within %{tx.restricted}" "setvar:tx.anomaly_score=+5"
SecRule REQUEST_METHOD "!@within %{tx.allowed}" "id:920902,phase:2,block,setvar:tx.anomaly_score=+5"
SecRule TX:anomaly_score "@ge 5" "id:949901,phase:2,deny"
`,
  );
  const tuned = loadRuleSet(dir);
  const everyRule = loadRuleSet(dir, reference);
  const post = (url: string): WafRequest => ({ ...request(url), method: 'POST' });
  // Each head comes with targets that change what TX holds before the chains run: the replay must see it.
  const cases: [WafRequest, boolean][] = [
    [request('/', ['x-evil', '1']), true],
    [request('/', ['proxy', 'http://203.0.113.9/']), true],
    [request('/'), false],
    // No restricted header, but a rule before the chain wrote what it selects.
    [request('/?pre=1'), true],
    [post('/'), false],
    // The method is the same, the allowed ones are not.
    [post('/?strict=1'), true],
    [{ ...request('/'), method: 'DELETE' }, true],
    // One header block (the key of the proxy's HTTP/1 requests) sent with two methods: a view serves one.
    [{ ...request('/'), headerBlock: 'Host: shop.example\r\nUser-Agent: curl/8.5.0' }, false],
    [{ ...request('/'), method: 'DELETE', headerBlock: 'Host: shop.example\r\nUser-Agent: curl/8.5.0' }, true],
  ];
  // The fourth time, each request's verdict is answered from the third's (verdict-memo.ts).
  for (let pass = 0; pass < 4; pass++) {
    for (const [req, denied] of cases) {
      const verdict = inspect(tuned, req, { paranoia: 1, threshold: 5, budgetMs: Infinity });
      assert.deepEqual(verdict, inspect(everyRule, req, { paranoia: 1, threshold: 5, budgetMs: Infinity }), `pass ${String(pass)}: ${req.headers.join(' ')}`);
      assert.equal(verdict.denied, denied, `pass ${String(pass)}: ${req.headers.join(' ')}`);
    }
  }
});

test('a value-wise rule the plan leaves out never runs on a value; those it keeps run once per value', () => {
  const dir = ruleSetWith(
    String.raw`
SecAction "id:900001,phase:1,pass,nolog,setvar:tx.sampling=100"
SecRule TX:sampling "@eq 100" "id:900002,phase:1,pass,nolog,skipAfter:END-SAMPLING"
SecRule REQUEST_HEADERS "@rx ^.*$" "id:900003,phase:1,pass,nolog,t:sha1,setvar:tx.seen=1"
SecMarker END-SAMPLING
SecRule REQUEST_HEADERS|ARGS "@detectXSS" "id:941901,phase:2,block,setvar:tx.anomaly_score=+5"
SecRule TX:anomaly_score "@ge 5" "id:949901,phase:2,deny"
`,
  );
  const rules = loadRuleSet(dir);
  const rule = (id: number) => [...rules.phases.values()].flat().find((item) => 'id' in item && item.id === id) as Rule;
  const settings = { paranoia: 1, threshold: 5, budgetMs: Infinity };
  assert.equal(inspect(rules, request('/?q=<script>alert(1)</script>'), settings).denied, true);
  for (let twice = 0; twice < 2; twice++) assert.equal(inspect(rules, request('/', ['x-note', 'hello']), settings).denied, false);
  const memo = rules.memos.stable.of('hello');
  assert.ok(memo !== undefined);
  assert.equal(memo.results.get(rule(900003).memoSlot), undefined, 'the rule sampling skips is not run');
  assert.equal(memo.results.get(rule(941901).memoSlot), null, 'the kept rule ran on the value, and did not match');
});

test('argument values go to the volatile memo: however many, they evict no header value', () => {
  const rules = loadRuleSet(ruleSetDir());
  const settings = { paranoia: 1, threshold: 5, budgetMs: Infinity };
  inspect(rules, request('/', ['x-level', '1']), settings);
  const kept = rules.memos.stable.of('curl/8.5.0');
  assert.ok(kept !== undefined);
  // Each twice: a value is kept the second time it comes.
  for (let i = 0; i < 5000; i++) for (let twice = 0; twice < 2; twice++) inspect(rules, request(`/?q=${String(i)}`), settings);
  assert.equal(rules.memos.stable.of('curl/8.5.0'), kept, 'the User-Agent is still remembered');
  assert.equal(rules.memos.volatile.size, 4096, 'the arguments filled the volatile memo');
});

test("clients' addresses go to a store of their own: a flood from many addresses evicts only addresses", () => {
  const rules = loadRuleSet(ruleSetDir());
  const settings = { paranoia: 1, threshold: 5, budgetMs: Infinity };
  for (let twice = 0; twice < 2; twice++) inspect(rules, request('/'), settings);
  const kept = rules.memos.stable.of('curl/8.5.0');
  assert.ok(kept !== undefined && rules.memos.addresses.of('198.51.100.7') !== undefined);
  // Each address twice: kept the second time (each with a target of its own, which no kept verdict answers: verdict-memo.ts).
  for (let i = 0; i < 3000; i++) for (let twice = 0; twice < 2; twice++) inspect(rules, { ...request(`/?n=${String(i)}`), client: `10.0.${String(i >> 8)}.${String(i & 255)}` }, settings);
  assert.equal(rules.memos.addresses.size, 1024);
  assert.equal(rules.memos.stable.of('curl/8.5.0'), kept, 'the User-Agent is still remembered');
});

test('one request with thousands of arguments looks up only its first ones: it evicts little of what others sent', () => {
  const rules = loadRuleSet(ruleSetDir());
  const settings = { paranoia: 1, threshold: 5, budgetMs: Infinity };
  for (let i = 0; i < 500; i++) for (let twice = 0; twice < 2; twice++) inspect(rules, request(`/?q=kept${String(i)}`), settings);
  const kept = rules.memos.volatile.of('kept0');
  assert.ok(kept !== undefined);
  const before = rules.memos.volatile.size;
  const body = Buffer.from(Array.from({ length: 5000 }, (_, i) => `a${String(i)}=v${String(i)}`).join('&'));
  const form = { ...request('/form', ['content-type', 'application/x-www-form-urlencoded']), method: 'POST', body };
  for (let twice = 0; twice < 2; twice++) assert.equal(inspect(rules, form, settings).denied, false);
  assert.equal(rules.memos.volatile.of('kept0'), kept, 'what an earlier request sent is still remembered');
  assert.ok(rules.memos.volatile.size - before <= 64 + 8, `${String(rules.memos.volatile.size - before)} values remembered of one request`);
});

test('with the Core Rule Set, the plan, the value-wise hits and the value memos change no verdict', { skip: !haveCrs && `no Core Rule Set in ${crsDir}` }, () => {
  const tuned = loadRuleSet(crsDir);
  const everyRule = loadRuleSet(crsDir, reference);
  const requests = [...benignWafRequests(), ...attacks.flatMap(carrying), ...oddHeads()];
  let denied = 0;
  for (const paranoia of [1, 2, 3, 4]) {
    const settings = { paranoia, threshold: 5, budgetMs: Infinity };
    // Four times: the second time every value and head is kept (value-memo.ts, head-view.ts),
    // the third every head's view is answered from what the second found and each request's
    // verdict is kept (verdict-memo.ts), the fourth every verdict is answered from the third's.
    for (let pass = 0; pass < 4; pass++) {
      for (const req of requests) {
        const a = inspect(tuned, req, settings);
        assert.deepEqual(a, inspect(everyRule, req, settings), `paranoia ${String(paranoia)}: ${req.method} ${req.url} ${req.headers.join(' ')}`);
        if (a.denied) denied++;
      }
    }
  }
  assert.ok(denied > attacks.length * 4, 'the attacks are refused');
  const [phase1 = [], phase2 = []] = planOf(tuned, { paranoia: 1, threshold: 5, budgetMs: Infinity });
  const planned = ids(phase1).length + ids(phase2).length;
  const all = [...everyRule.phases.values()].flat().filter((item) => !('marker' in item)).length;
  assert.ok(planned < all / 3, `a request runs ${String(planned)} of ${String(all)} rules at paranoia 1`);
});
