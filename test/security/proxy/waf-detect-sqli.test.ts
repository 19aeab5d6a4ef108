// @detectSQLi (CRS rules 942100/942101): injections of each kind detected, in the three contexts a
// value can land in (as it is, after a single quote, after a double quote), and what ordinary
// visitors type — names with apostrophes, prose with SQL words, dates, tokens, user agents — passing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileOperator } from '../../../src/security/proxy/waf/operators.ts';
import { detectSqlInjection } from '../../../src/security/proxy/waf/sql-injection.ts';

const attacks: [kind: string, values: string[]][] = [
  ['tautologies after a closed string', ["1' OR '1'='1", "-5' or 'a'='a", 'x" or "1"="1', "' or ''='", '" or ""="', "admin'or'1'='1", "' OR 1=1--", "nobody' or 2 > 1", "guest' AND 7=7"]],
  ['tautologies after a number', ['1234 OR 1=1', '1 AND 1=2', '7) or (3=3', '1/**/OR/**/1=1', '42 || 1=1']],
  ['parentheses closed and reopened', ["') or ('1'='1", "')) or (('x'='x", "x') AND ('a' LIKE 'a"]],
  ['a condition opened by the value', ['AND (name = "', 'or 1=1', "OR 'a'='a"]],
  ['the rest of the statement commented out', ["admin'--", "admin' #", "admin'/*", "root')--", "' or 1--", '5 or 1#']],
  ['UNION SELECT', ['1 UNION SELECT 1,2,3', '-1 union all select null,version()--', "x' UNION SELECT username, password FROM users--", "foo') UNION ALL select NULL --", '1/*!50000UNION*/SELECT 1']],
  ['stacked statements', ["'; DROP TABLE users; --", '1; drop database shop', "x'; exec master..xp_cmdshell 'dir'--", '1;select pg_sleep(5)', "EmptyValue', '4', '2');declare @q varchar(99)"]],
  ['time-based: calls that make the database wait', ['sleep(20)', '1 and sleep(5)', "' and benchmark(5000000,md5(1))#", "2010-01-01'+sleep(20.to_i)+'", "2010-01-01' sleep(20.to_i) '", 'x" sleep(10) "', "1' waitfor delay '0:0:5'--", 'IF(1=1,SLEEP(5),0)', '1 or pg_sleep(5)--', '1 and dbms_lock.sleep(5)', "1' AND 1=DBMS_PIPE.RECEIVE_MESSAGE(CHR(99),5)--"]],
  ['subqueries and functions in a condition', ["' AND 1=(SELECT COUNT(*) FROM tabname); --", '1 AND ASCII(SUBSTRING((SELECT password FROM users LIMIT 1),1,1))>64', "' OR 1 IN (SELECT @@version)--", "1'||(select extractvalue(xmltype('<x/>'),'/l'))||'", "1' and 1=convert(int,@@version)--"]],
  ['clauses after the quote', ["1' ORDER BY 3--+", "' GROUP BY columnnames having 1=1 --", "' HAVING 1=1--", "x' AND email IS NULL; --"]],
  ['statements from the start', ['SELECT 6229 FROM(SELECT COUNT(*),CONCAT(0x71,(SELECT (CASE', 'select * from users', 'concat(0x223e,version(),0x3c)', "FROM `t` WHERE CONVERT(`t`.`id` USING utf8) = 'n5' LIMIT"]],
  ['a comparison right after the quote', ["x'='x", "1' = '1"]],
];

const benign = [
  "O'Brien", "Patrick O'Brien", "Mary-Kate O'Neil", "Coeur d'Alene", "12 Rue de l'Église", "D'Angelo Rossi",
  "don't stop", '"don\'t stop"', "rock 'n' roll", "don't stop believin' vinyl", "men's trail runners size 42", "'90s and '80s hits",
  'Tom and Jerry', 'tom & jerry', '1 or 2 items', 'select a size', 'select all', 'select comfort mattress', 'union station', 'union jack flag',
  'echo dot', 'exec chair', 'update firmware', 'drop shipping', 'how to delete my account', 'insert for boots', 'or else jacket', 'and or but',
  'from dusk till dawn dvd', 'where to buy', 'order by price', 'count me in', 'benchmark', 'sleep mask', 'sleep (8 hours)', 'I need more sleep (at least 8h)',
  'jane.doe+news@example.com', 'email me at john@example.com or call 555-1234', '2010-01-01', '2024-12-24T10:00:00Z', '12/11/2024',
  '{"a":"b","c":[1,2,3]}', '{"necessary":true,"analytics":true,"marketing":false}', '["red","green"]',
  '-1.5', 'a - b', '10 - 20', '2 < 3 kids puzzle', 'price >= 10 and price <= 20', 'what is 5% of 200', '50% off', '$20 gift card', 'size 10 1/2', '3/4 cup',
  '## Shopping list\n- eggs (x12)\n- *don\'t* forget milk\n\n> remember the coupon', '**bold** and _italic_ [link](https://example.com)', '# Title', 'Tom\'s #1 fan', 'C# developer', 'Apt #5',
  '550e8400-e29b-41d4-a716-446655440000', 'ZGFuaWVsLm9icmllbg==', 'eyJ1c2VyIjo0MiwibmFtZSI6Ik8nQnJpZW4ifQ.ZzT2qA.kM3vC8x4H9n0b1Qw-Ue7rT2yLpA', 'Hq3Jv9XbT2kL8mNpQr4sUw6yZa1cDe5F',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'curl/8.5.0',
  'https://www.shop.example/search?q=it\'s+fine&page=2', 'https://www.google.com/search?q=select+union+or+and', 'https://www.shop.example/',
  'GA1.2.123.456', 'GS1.1.1732010000.4.1.1732010500.0.0.0', 'session=abc123', 'abc123', 'en-GB,en-US;q=0.9,en;q=0.8', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  "Hi, I'd like to know when the tweed cap is back in stock. Thanks!",
  "Great post! I've tried this recipe twice -- the 2nd time with 20% more water -- and it's way better.",
  'Hmm... not sure; my loaf (the one from step 3) collapsed. Any tips?',
  'Select your flour carefully: union of rye and wheat works; drop the sugar or delete it entirely.',
  'We select the best beans and drop them into the roaster; union members run the plant.',
  "c0rrect-H0rse_battery'staple!", 'N3w\'P@ss"word<2024>', 'P@ssw0rd#2024&more', 'Dr. J. "Jim" Smith', 'Is "waterproof" really waterproof, or just "water-resistant"?',
  "Nice cap… runs a bit small; my wife says it's \"très chic\".", 'Leave at the door if no answer; code #4521', "Order #10442 hasn't arrived",
  'Hi, I ordered on 12/11 (Tue) and tracking says "delivered" - but it\'s not here?! Please help :(',
  'query Product($id: ID!) { product(id: $id) { name price reviews(first: 5) { rating title } } }',
  'Use a for loop: for i in range(10): print(i) -- works in Python 3.', "It's 5 o'clock somewhere", "the players' and coaches' meeting", 'He said \'yes\' and she said \'no\'',
  "I'm here - and you're there", 'it\'s a 10/10 = great', 'a=1 and b=2', 'shoes; sandals', 'if (you can)', 'select (one)', 'left or right', 'version 2.0', '',
];

test('injections of every kind are detected', () => {
  for (const [kind, values] of attacks) {
    for (const value of values) assert.ok(detectSqlInjection(value) !== undefined, `${kind}: ${value}`);
  }
});

test('what visitors type passes: apostrophes, SQL words in prose, dates, tokens, user agents, URLs', () => {
  for (const value of benign) assert.equal(detectSqlInjection(value), undefined, value);
});

test('the match names the shape and the context it was read in', () => {
  assert.equal(detectSqlInjection("1' OR '1'='1"), "'q&s=s");
  assert.equal(detectSqlInjection('x" or "1"="1'), '"q&s=s');
  assert.equal(detectSqlInjection('1 OR 1=1'), 'n&n=n');
  assert.equal(detectSqlInjection("admin'--"), "'q#");
});

test('a long value: the string it closes may be long, what follows the quote is judged', () => {
  const prose = 'lorem ipsum dolor sit amet, '.repeat(5_000);
  assert.equal(detectSqlInjection(prose), undefined);
  assert.equal(detectSqlInjection(`${prose}' or 1=1`), "'Q&n=n");
  assert.ok(detectSqlInjection(`x' or 1=1 -- ${'a'.repeat(100_000)}`) !== undefined);
});

test('arbitrary bytes: no exception, whatever the quotes, comments and brackets left open', () => {
  let seed = 42;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  const alphabet = ` '"\`()/*-#;=<>|&!@.,0123456789abcdefxORANDselectunion\t\n\u00a0\u00ff`;
  for (let n = 0; n < 2_000; n++) {
    let value = '';
    for (let i = next() % 64; i > 0; i--) value += alphabet.charAt(next() % alphabet.length);
    const found = detectSqlInjection(value);
    assert.ok(found === undefined || typeof found === 'string');
  }
});

test('@detectSQLi as CRS runs it: the shape is the capture (TX:0)', () => {
  const operator = compileOperator('detectSQLi', '', '.');
  assert.deepEqual(operator("-1839' or '1'='1", (s) => s), ["'q&s=s"]);
  assert.equal(operator('Tom and Jerry', (s) => s), undefined);
});
