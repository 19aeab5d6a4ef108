// @detectSQLi: whether a value, pasted into an SQL statement, would change the statement's structure.
// The value is read three times (sql-tokens.ts): as it is (where a number goes), and as the rest of
// a string opened by a single or by a double quote — the last two only when the value closes that
// quote. Each reading's first tokens are folded into a shape (`q&s=s` for `x' or 'a'='a`), and the
// shape is judged by the structural rules below: an injection has to close the value it sits in and
// then do something only SQL does (compare in a boolean, call the database's functions, add a query
// or a statement, comment out the rest). Words alone never match: "select a size", "Tom and Jerry",
// "1 or 2 items", "O'Brien" stay what they are. libinjection (the library ModSecurity uses) was the
// model for the approach; the tokenizer and the rules are this project's own.
import { ctxDouble, ctxNone, ctxSingle, SqlTokens } from './sql-tokens.ts';

/**
 * The shapes of an injection, over the letters sql-tokens.ts documents. `V` below stands for what
 * may start a value's reading: the quote the value closes (q, Q), or a literal (n, s, v).
 */
const rules: [rule: string, why: string][] = [
  // V, then AND/OR, then a comparison: `x' or 'a'='a`, `1 or 1=1`, `1) or (1=1`, `and (name = "`.
  ['^[qQnsv]?\\)*&\\(*(?:[nsvw]|[fw]\\([^)]*\\))\\)*(?:=|l[nsvw(])', 'a boolean test after the value'],
  // The quote closed, AND/OR and a literal, then the end of the statement: `x' or 1--`, `' or 'x`.
  ['^[qQ]\\)*&\\(*[ns]\\)*(?:#|;|$)', 'an always-true condition after the quote'],
  ['^[nsv]\\)*&\\(*[ns]\\)*[#;]', 'an always-true condition, then the rest commented out'],
  // A function after a comparison or AND/OR: `' and ascii(substr(...))`, `1 or sleep(5)`.
  ['^[qQnsv]\\)*[&=]\\(*[fz]\\(', 'a function call in a condition'],
  ['^\\)*&\\(*[fz]\\(', 'a function call in a condition'],
  // A call that waits or reaches the system, at the start or after an operator, never after a word
  // ("I need sleep(8h)"): `sleep(5)`, `'+benchmark(...)`, `if(1=1,sleep(5),0)`, `' waitfor delay`.
  ['(?:^|[qQ&=lo,;(])\\)*z', 'a call that delays or reaches the system'],
  ['U\\(*S', 'UNION SELECT'],
  ['\\(S(?:[nvsofz(]|w[,F])', 'a subquery'],
  // A value (or a list of them, or a word then `)`) closed, then a statement: `1; drop table t`,
  // `x', '4');declare @q ...`, `test));exec ...`.
  ['^(?:[qQnsv](?:,[nsv])*|w(?=\\)))?\\)*;(?:X|S(?:[nvsofz(]|w[,F]))', 'a stacked statement'],
  // The quote closed right after a field-like value, then a comment: `admin'--`, `admin')#`.
  ['^q\\)*#', 'the rest of the statement commented out'],
  ['^\\(*S\\(*(?:[nvs][,F#;U]|o|[fz]\\()', 'a SELECT statement'],
  // SQL functions nested from the start: `concat(0x3c,version())`, `ascii(substring(...))`.
  ['^\\(*f\\([^)]*f\\(', 'nested SQL function calls'],
  ['^F[ws]W(?:w?[fz]\\(|[nsvw](?:=|l[nsvw(]))', 'a FROM ... WHERE clause'],
  ['^[qQ]\\)*K[nsvw(]', 'a clause after the quote (ORDER BY, HAVING, ...)'],
  ['^[nv]\\)*K[nsv]\\)*[#;]', 'a clause, then the rest commented out'],
  ['^[qQ]\\)*(?:=[nsv]|l[s(])', 'a comparison right after the quote'],
];

const judge = new RegExp(rules.map(([rule]) => `(?:${rule})`).join('|'));

const tokens = new SqlTokens();

/** The contexts, in order: as it is, after a single quote, after a double quote. */
const contexts = [ctxNone, ctxSingle, ctxDouble];

/** The matched shape (the reading's context first: `'q&s=s`), or undefined when the value is no injection. */
export function detectSqlInjection(value: string): string | undefined {
  for (const context of contexts) {
    if (context !== ctxNone && value.indexOf(context === ctxSingle ? "'" : '"') < 0) continue;
    if (!tokens.read(value, context) || !tokens.triggered) continue;
    const shape = tokens.shape();
    if (judge.test(shape)) return context === ctxNone ? shape : `${String.fromCharCode(context)}${shape}`;
  }
  return undefined;
}
