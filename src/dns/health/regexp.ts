// Health checks match response bodies against a tenant's regular expression. V8's backtracking
// engine can take exponential time on patterns like (a+)+$, which would stall the DNS thread that
// runs the checks; its linear-time engine (the `l` flag) cannot, and refuses the few constructs it
// cannot run in linear time (backreferences, lookaround), which the API then reports.
import v8 from 'node:v8';

// A V8 option rather than a Node one: it enables the flag, process-wide, for regexps made after it.
v8.setFlagsFromString('--enable-experimental-regexp-engine');

/** The pattern compiled for linear-time matching; throws SyntaxError naming what is wrong. */
export function linearRegExp(source: string): RegExp {
  // eslint-disable-next-line no-invalid-regexp -- `l` is the linear engine's flag, enabled above
  return new RegExp(source, 'l');
}
