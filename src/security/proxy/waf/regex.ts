// The Core Rule Set's regexes on attacker input, in bounded time. They run on V8's backtracking
// engine (fast on ordinary input), told to hand a match over to V8's linear-time engine once it has
// backtracked 50,000 times (`--enable-experimental-regexp-engine-on-excessive-backtracks`, set once
// for the process before any rule compiles): a pattern that could backtrack exponentially or
// polynomially costs at most linear time past that point. pcre.ts writes patterns so that the
// linear engine takes them (case classes, not the `i` flag); 7 of CRS 3.3.4's 260 request patterns
// it cannot take (backreferences, lookahead, repeats bounded above 16) backtrack within a window.
//
// Chosen over the `re2` package, which would be linear throughout: it has no prebuilt binary here,
// and compiling it made every `npm ci` 3.5 minutes longer (measured on this 2-core machine).
import v8 from 'node:v8';
import { pcreToJs } from './pcre.ts';

v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
v8.setFlagsFromString('--enable-experimental-regexp-engine');

/**
 * Bytes of a value a pattern sees at once. Past the fallback, V8's linear engine costs some µs a byte
 * for CRS's larger patterns, and below it backtracking grows faster than the input: unbounded, a
 * 128 KiB argument built to backtrack cost one request 30 s (measured). A longer value is looked at
 * in windows of this size overlapping by `regexOverlap` (a match up to that long is always whole in
 * one), so its cost grows linearly with its length; patterns anchored at either end (or using `^`
 * in a class, which this does not tell apart) see the first window only.
 */
export const regexWindow = 4096;
export const regexOverlap = 1024;

export interface CompiledRegex {
  exec(value: string): RegExpExecArray | null;
  /** The linear engine takes over when backtracking grows (false: backreferences, lookahead, large bounded repeats). */
  readonly linear: boolean;
}

/** V8's flag for its linear engine (not standard: a literal 'l' would be refused by tools that know only the standard ones). */
const linearFlag = 'l';

function linearCapable(source: string): boolean {
  try {
    new RegExp(source, linearFlag);
    return true;
  } catch {
    return false;
  }
}

/** Compiles a PCRE pattern of a rule; throws (PcreError, SyntaxError) when it cannot be. */
export function compileRegex(pattern: string): CompiledRegex {
  const source = pcreToJs(pattern);
  // No `s` flag: PCRE's `.` does not match a newline either.
  const re = new RegExp(source);
  const anchored = /(?:^|[^\\])[\^$]/.test(source);
  const exec = (value: string): RegExpExecArray | null => {
    if (value.length <= regexWindow) return re.exec(value);
    if (anchored) return re.exec(value.slice(0, regexWindow));
    for (let at = 0; at < value.length - regexOverlap; at += regexWindow - regexOverlap) {
      const found = re.exec(value.slice(at, at + regexWindow));
      if (found !== null) return found;
    }
    return null;
  };
  return { exec, linear: linearCapable(source) };
}
