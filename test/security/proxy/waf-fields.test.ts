// The request's variables as the WAF's rules read them (request-fields.ts): arguments URL-decoded
// as ModSecurity decodes them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestCollections, type WafRequest } from '../../../src/security/proxy/waf/request-fields.ts';
import { ValueMemos } from '../../../src/security/proxy/waf/value-memo.ts';
import { RepeatStore } from '../../../src/security/proxy/waf/repeat-store.ts';
import { newHeadView } from '../../../src/security/proxy/waf/head-view.ts';

const memos = { stable: new ValueMemos(0, 0), volatile: new ValueMemos(0, 0), heads: new RepeatStore(0, 0, newHeadView), addresses: new ValueMemos(0, 0) };

const argsOf = (query: string): [string, string][] => {
  const req: WafRequest = { method: 'GET', url: `/?${query}`, protocol: 'HTTP/1.1', headers: ['host', 'shop.example'], client: '198.51.100.7', body: Buffer.alloc(0), id: 'x' };
  return (requestCollections(req, 0, memos, undefined).collections.ARGS ?? []).map((f) => [f.name, f.value]);
};

/** ModSecurity's decoding, written the obvious way: `+` to a space first, then each `%XX` to its byte. */
const reference = (s: string): string => s.replace(/\+/g, ' ').replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

test('arguments are URL-decoded once: + a space, %XX its byte (%2B a plus), any other % as it is', () => {
  assert.deepEqual(argsOf('q=a+b%2Bc&%71=%3Cscript%3E&bad=%zz%4&end=%'), [
    ['q', 'a b+c'],
    ['q', '<script>'],
    ['bad', '%zz%4'],
    ['end', '%'],
  ]);
  // Every short string of the characters that matter, against the obvious decoding.
  const alphabet = ['%', '+', '2', 'b', 'F', 'g', '0', 'é'];
  let checked = 0;
  const walk = (prefix: string): void => {
    if (prefix.length > 0) {
      assert.deepEqual(argsOf(`v=${prefix}`), [['v', reference(prefix)]], prefix);
      checked++;
    }
    if (prefix.length < 5) for (const c of alphabet) walk(prefix + c);
  };
  walk('');
  assert.ok(checked > 30_000);
});
