// The WAF's prefilter (prefilter.ts): the literals a regex cannot match without, the one-pass scan
// for them, and, against the OWASP Core Rule Set, the proof that matters: with the prefilter on,
// every request gets the verdict, score and matched rules it gets with every rule run in full.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { threadCpuMs } from '../../../src/security/proxy/waf/budget.ts';
import { inspect } from '../../../src/security/proxy/waf/engine.ts';
import { LiteralScanner } from '../../../src/security/proxy/waf/literal-scanner.ts';
import { pcreToJs } from '../../../src/security/proxy/waf/pcre.ts';
import { requiredLiterals } from '../../../src/security/proxy/waf/required-literals.ts';
import type { WafRequest } from '../../../src/security/proxy/waf/request-fields.ts';
import { loadRuleSet, type Rule } from '../../../src/security/proxy/waf/rule-set.ts';
import { attacks, benignWafRequests, carrying, crsDir, haveCrs } from './waf-requests.ts';

if (!haveCrs) console.warn(`SKIPPED: the prefilter's Core Rule Set tests need ${crsDir} (apt-get install modsecurity-crs)`);

test('a regex gives the literals every match contains, folded to lower case', () => {
  const cases: [string, string[] | undefined][] = [
    // A sequence keeps the rarer of its parts' literals.
    ['union\\s+select', ['select']],
    ['(?:etc/passwd|boot\\.ini)', ['etc/passwd', 'boot.ini']],
    ['[sS][eE][lL][eE][cC][tT]', ['select']],
    ['<script[^>]*>', ['<script']],
    ['(?:on(?:error|load))\\s*=', ['onerror', 'onload']],
    ['a?b?c?', undefined],
    ['.*', undefined],
    ['\\w+', undefined],
    // Single letters are in nearly every value: no use looking for them.
    ['[a-z]x', undefined],
  ];
  for (const [pattern, expected] of cases) assert.deepEqual(requiredLiterals(pattern)?.sort(), expected?.sort(), pattern);
});

test('every string a pattern matches holds one of its literals', () => {
  const samples: [string, string[]][] = [
    ['(?:new\\s+Function|\\beval)\\s*\\(', ['new   Function (', 'x eval(', 'eval  (']],
    ['(?i)\\x5c(?:\\.\\.|%2e)', ['\\..', '\\%2E']],
    ['(?:;|\\|\\||&&)\\s*(?:cat|ls)\\b', ['; cat', '&&ls', '|| cat']],
  ];
  for (const [pcre, matching] of samples) {
    const source = pcreToJs(pcre);
    const literals = requiredLiterals(source);
    assert.ok(literals !== undefined, pcre);
    for (const value of matching) {
      assert.ok(new RegExp(source).test(value), `${pcre} matches ${value}`);
      assert.ok(literals.some((l) => value.toLowerCase().includes(l)), `${value} holds one of ${literals.join(' ')}`);
    }
  }
});

test('(?i) leaves a \\xHH escape whole (its hex digits are no letters)', () => {
  assert.equal(pcreToJs('(?i)\\x5c'), '\\x5c');
  assert.ok(new RegExp(pcreToJs('(?i)a\\x5cb')).test('A\\B'));
  assert.ok(!new RegExp(pcreToJs('(?i)\\x5c')).test('x5c'));
});

test('the scanner finds overlapping literals, in either case, and reports each owner once per value', () => {
  const scanner = new LiteralScanner([['he'], ['she'], ['hers'], ['<script'], ['x']]);
  const owners = (value: string): number[] => {
    const bits = scanner.scan(value);
    return [0, 1, 2, 3, 4].filter((i) => (((bits[i >>> 5] ?? 0) >>> (i & 31)) & 1) === 1);
  };
  assert.deepEqual(owners('USHERS'), [0, 1, 2]);
  assert.deepEqual(owners('a <SCRIPT> b'), [3]);
  assert.deepEqual(owners('nothing here'), [0]);
  assert.deepEqual(owners(''), []);
  // The same owner found again in the next value (per-scan bookkeeping is reset between values).
  assert.deepEqual(owners('xx'), [4]);
  assert.deepEqual(owners('x'), [4]);
});

test('with the Core Rule Set, the prefilter changes no verdict', { skip: !haveCrs && `no Core Rule Set in ${crsDir}` }, () => {
  const prefiltered = loadRuleSet(crsDir);
  const full = loadRuleSet(crsDir);
  let skippable = 0;
  for (const list of full.phases.values()) {
    for (const item of list) {
      if ('marker' in item) continue;
      const rule: Rule = item;
      if (rule.prefilterBit >= 0) skippable++;
      rule.prefilterBit = -1;
    }
  }
  assert.ok(skippable > 150, `most rules are prefiltered (${String(skippable)})`);
  const requests = [...benignWafRequests(), ...attacks.flatMap(carrying)];
  let denied = 0;
  for (const paranoia of [1, 2]) {
    const settings = { paranoia, threshold: 5, budgetMs: Infinity };
    for (const request of requests) {
      const a = inspect(prefiltered, request, settings);
      const b = inspect(full, request, settings);
      assert.deepEqual(a, b, `${request.method} ${request.url} ${request.headers.join(' ')}`);
      if (a.denied) denied++;
    }
  }
  assert.ok(denied > attacks.length, 'the attacks are refused');
});

test('the prefilter pass stops at the inspection budget, as the rules do', { skip: !haveCrs && `no Core Rule Set in ${crsDir}` }, () => {
  const rules = loadRuleSet(crsDir);
  // 20,000 arguments, each with what several transformation chains react to: the pass is long.
  const body = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `a${String(i)}=%27x%20y/z`).join('&'));
  const request: WafRequest = { method: 'POST', url: '/', protocol: 'HTTP/1.1', headers: ['host', 'shop.example', 'content-type', 'application/x-www-form-urlencoded'], client: '198.51.100.7', body, id: 'x' };
  // The budget is CPU the thread spends (budget.ts), and so is what is compared: wall time would
  // count whatever else a busy machine ran meanwhile.
  const timed = (budgetMs: number) => {
    const started = threadCpuMs();
    const verdict = inspect(rules, request, { paranoia: 1, threshold: 5, budgetMs });
    return { verdict, ms: threadCpuMs() - started };
  };
  const whole = timed(Infinity);
  assert.equal(whole.verdict.exhausted, false);
  const cut = timed(5);
  assert.deepEqual([cut.verdict.exhausted, cut.verdict.denied], [true, true]);
  // Stopped within the pass, not after it: a fraction of the whole inspection.
  assert.ok(cut.ms < whole.ms / 3, `${cut.ms.toFixed(1)} ms of CPU with a 5 ms budget, ${whole.ms.toFixed(1)} ms without`);
});
