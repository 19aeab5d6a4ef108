// The WAF's kept verdicts (verdict-memo.ts): a request met again (the same head, target and body) is
// answered with the verdict it got, and only where no rule could judge the two differently: the
// client's address, the request id and the time spent are not part of the head, target and body.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { inspect, type WafSettings } from '../../../src/security/proxy/waf/engine.ts';
import type { WafRequest } from '../../../src/security/proxy/waf/request-fields.ts';
import { loadRuleSet, reference } from '../../../src/security/proxy/waf/rule-set.ts';

const settings: WafSettings = { paranoia: 1, threshold: 5, budgetMs: Infinity };

function ruleSetWith(text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-waf-verdicts-'));
  fs.writeFileSync(path.join(dir, 'REQUEST-900-TEST.conf'), `${text}\nSecRule TX:anomaly_score "@ge 5" "id:949901,phase:2,deny"\n`);
  return dir;
}

const request = (url: string, client: string, id = 'x'): WafRequest => ({
  method: 'GET',
  url,
  protocol: 'HTTP/1.1',
  headers: ['host', 'shop.example', 'user-agent', 'curl/8.5.0'],
  headerBlock: 'Host: shop.example\r\nUser-Agent: curl/8.5.0',
  client,
  body: Buffer.alloc(0),
  id,
});

const form = (url: string, body: string): WafRequest => ({
  ...request(url, '198.51.100.7'),
  method: 'POST',
  headers: ['host', 'shop.example', 'content-type', 'application/x-www-form-urlencoded'],
  headerBlock: 'Host: shop.example\r\nContent-Type: application/x-www-form-urlencoded',
  body: Buffer.from(body, 'latin1'),
});

/** Each request, in turn, six times over (kept from the third time, answered from the fourth): the tuned engine's verdicts against every rule run afresh. */
function sameVerdicts(text: string, requests: [WafRequest, boolean][]): void {
  const dir = ruleSetWith(text);
  const tuned = loadRuleSet(dir);
  const everyRule = loadRuleSet(dir, reference);
  for (let pass = 0; pass < 6; pass++) {
    for (const [req, denied] of requests) {
      const verdict = inspect(tuned, req, settings);
      const what = `pass ${String(pass)}: ${req.url} from ${req.client} (${req.id})`;
      assert.deepEqual(verdict, inspect(everyRule, req, settings), what);
      assert.equal(verdict.denied, denied, what);
    }
  }
}

test('a rule matching the client address: requests alike but for their address each get their own verdict', () => {
  sameVerdicts(
    String.raw`
SecRule REQUEST_LINE "@streq GET / HTTP/1.1" "id:900001,phase:1,pass,nolog,chain"
    SecRule REMOTE_ADDR "@ipMatch 127.0.0.1,::1" "setvar:tx.anomaly_score=+5"
SecRule REMOTE_ADDR "!@ipMatch 10.0.0.0/8" "id:900002,phase:1,pass,nolog,chain"
    SecRule ARGS:admin "@streq 1" "setvar:tx.anomaly_score=+5"
`,
    [
      [request('/', '127.0.0.1'), true],
      [request('/', '198.51.100.7'), false],
      [request('/', '::1'), true],
      [request('/?admin=1', '10.1.2.3'), false],
      [request('/?admin=1', '198.51.100.7'), true],
      [request('/?admin=1', '10.9.9.9'), false],
    ],
  );
});

test('a rule reading the request id, or the address through a macro: every request judged afresh', () => {
  sameVerdicts(
    String.raw`
SecRule UNIQUE_ID "@rx 7$" "id:900001,phase:1,pass,nolog,setvar:tx.anomaly_score=+5"
`,
    [
      [request('/', '198.51.100.7', 'r6'), false],
      [request('/', '198.51.100.7', 'r7'), true],
    ],
  );
  sameVerdicts(
    String.raw`
SecAction "id:900001,phase:1,pass,nolog,setvar:tx.client=%{remote_addr}"
SecRule TX:client "@beginsWith 203.0.113." "id:900002,phase:1,pass,nolog,setvar:tx.anomaly_score=+5"
`,
    [
      [request('/', '198.51.100.7'), false],
      [request('/', '203.0.113.9'), true],
    ],
  );
});

test('the body is part of what is met again; a verdict the budget cut short is never kept', () => {
  const dir = ruleSetWith(String.raw`SecRule ARGS_POST:q "@contains evil" "id:900001,phase:2,pass,nolog,setvar:tx.anomaly_score=+5"`);
  const rules = loadRuleSet(dir);
  for (let pass = 0; pass < 5; pass++) {
    assert.equal(inspect(rules, form('/f', 'q=evil'), settings).denied, true);
    assert.equal(inspect(rules, form('/f', 'q=fine'), settings).denied, false);
    // The same target and body one after the other, cut elsewhere: not the request before.
    assert.equal(inspect(rules, form('/fq=evi', 'l'), settings).denied, false);
  }
  // No budget at all: each inspection stops at once; none of them is what a later one is answered with.
  const stopped = { ...settings, budgetMs: 0 };
  for (let pass = 0; pass < 5; pass++) assert.equal(inspect(rules, request('/g', '198.51.100.7'), stopped).exhausted, true);
  assert.deepEqual(inspect(rules, request('/g', '198.51.100.7'), settings), { denied: false, score: 0, matched: [], exhausted: false });
});
