// @detectXSS (CRS rules 941100/941101): script-running HTML detected where a value can land (the
// page's text, a tag's attributes, the rest of a quoted attribute value, a URL), and ordinary text
// with angle brackets, quotes and `=` passing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectHtmlInjection } from '../../../src/security/proxy/waf/html-injection.ts';
import { compileOperator } from '../../../src/security/proxy/waf/operators.ts';

const attacks: [kind: string, values: string[]][] = [
  ['tags that run or load script', ['<script>alert(1)</script>', '<SCRIPT SRC=//evil.example/x.js>', '<iframe src=//evil.example>', '<svg/onload=alert(1)>', '<object data=x.swf>', '<embed src=x>', '<base href=//evil.example/>', '<meta http-equiv=refresh content=0;url=//evil.example>', '<x:script xmlns:x="http://www.w3.org/1999/xhtml">', '<style>@import "//evil.example"</style>']],
  ['event handlers in a tag the value opens', ['<img src=x onerror=alert(1)>', '<body onload=alert(1)>', '<div onpointerenter="x()">', '<a onclick=alert(1)>x</a>', '<video><source onerror="alert(1)">', '<details open ontoggle=alert(1)>']],
  ['breaking out of an attribute value', ['"><img src=x onerror=alert(1)>', '" onmouseover="alert(1)', "' onfocus='alert(1)' autofocus='", 'x onclick=alert(1)', 'onload=alert(1)', '` onmouseover=alert(1)', 'pay=div style="', 'x" style="position:fixed;top:0']],
  ['script URLs', ['javascript:alert(1)', ' JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', 'vbscript:msgbox(1)', '<a href="javascript:alert(1)">x</a>', '<img src="data:text/html;base64,PHNjcmlwdD4=">', '<iframe srcdoc="<script>alert(1)</script>">', '<form><button formaction=javascript:alert(1)>']],
  ['style that runs script', ['<div style="width:expression(alert(1))">', '<p style="background:url(javascript:alert(1))">', '<b style="behavior:url(x.htc)">']],
  ['XML declarations and processing instructions', ['<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>', '<?import implementation="x.htc">', '<?xml version="1.0"?><x/>']],
];

const benign = [
  'a < b and c > d', 'x<y', '2 < 3 kids puzzle', 'love <3 necklace', '<3 <3 <3', 'Size 42 < size 43', 'Good, but price > value',
  'Use the <strong> tag, not <b>, for emphasis in your template.', '<b>bold</b> text', '<p>Hello</p>', '<a href="https://example.com">link</a>', '<img src="cat.jpg" alt="a cat">',
  'The cap, on a <wooden> table', 'style=casual', 'dress style=casual', 'shoes onsale=yes', 'online=yes', 'onion rings', 'javascript: the good parts', 'java script tutorial',
  'script writing course', 'alert bracelet', 'document.write tutorial', 'a=1&b=2', 'x=1; y=2', 'key="value"', "O'Brien", '"exact phrase" search', 'N3w\'P@ss"word<2024>',
  '{"a":"b","c":[1,2,3]}', '{"necessary":true,"analytics":true,"marketing":false}', 'https://www.shop.example/search?q=shoes&page=2', 'data:image/png;base64,iVBORw0KGgo=',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', '<!-- a comment -->', 'mailto:jane@example.com', '',
];

test('script-running HTML is detected wherever the value lands', () => {
  for (const [kind, values] of attacks) {
    for (const value of values) assert.ok(detectHtmlInjection(value) !== undefined, `${kind}: ${value}`);
  }
});

test('angle brackets, quotes and `=` in ordinary text pass', () => {
  for (const value of benign) assert.equal(detectHtmlInjection(value), undefined, value);
});

test('the match names what runs script', () => {
  assert.equal(detectHtmlInjection('<script>alert(1)</script>'), '<script');
  assert.equal(detectHtmlInjection('"><img src=x onerror=alert(1)>'), 'onerror=');
  assert.equal(detectHtmlInjection('<a href="javascript:alert(1)">'), 'href=javascript:');
});

test('@detectXSS as CRS runs it: the part found is the capture', () => {
  const operator = compileOperator('detectXSS', '', '.');
  assert.deepEqual(operator('<svg/onload=alert(1)>', (s) => s), ['<svg']);
  assert.equal(operator('a < b', (s) => s), undefined);
});
