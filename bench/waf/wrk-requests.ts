// A wrk script sending a list of requests in turn on every connection (keep-alive), given as their
// exact bytes: the benign corpus as load, so the CPU a WAF costs is measured on what it inspects in
// practice (headers, cookies, form and JSON bodies) rather than on a bare GET.

/** A Lua string literal holding `bytes` exactly (decimal escapes for anything but printable ASCII). */
function luaString(bytes: Buffer): string {
  let out = '"';
  for (const b of bytes) out += b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${String(b).padStart(3, '0')}`;
  return `${out}"`;
}

/** Where a counter goes in a request: its bytes up to its target's end, the separator (`?_=`, or `&_=` after a query), and the rest (from " HTTP/" on the request line). */
export function atTargetEnd(request: Buffer): { head: Buffer; separator: string; tail: Buffer } {
  const lineEnd = request.indexOf('\r\n');
  const targetEnd = request.lastIndexOf(' HTTP/', lineEnd);
  const head = request.subarray(0, targetEnd);
  return { head, separator: head.includes('?') ? '&_=' : '?_=', tail: request.subarray(targetEnd) };
}

/**
 * Lua defining wrk's request(): each connection's thread walks the list, round and round. With
 * `uniqueTargets`, each request's target gets one more query argument, a counter (`?_=N`, `&_=N`,
 * as a cache-busting client adds): no target, query string or request line is ever seen twice, so
 * what a WAF remembers of the ones it saw before (edgeplane's value memo) does not spare it that work.
 */
export function requestsScript(requests: Buffer[], uniqueTargets = false): string {
  if (!uniqueTargets) {
    return [
      'local requests = {',
      ...requests.map((r) => `  ${luaString(r)},`),
      '}',
      'local next = 0',
      'request = function()',
      '  next = next % #requests + 1',
      '  return requests[next]',
      'end',
      '',
    ].join('\n');
  }
  const parts = requests.map(atTargetEnd);
  return [
    'local heads = {',
    ...parts.map((p) => `  ${luaString(p.head)},`),
    '}',
    'local separators = {',
    ...parts.map((p) => `  "${p.separator}",`),
    '}',
    'local tails = {',
    ...parts.map((p) => `  ${luaString(p.tail)},`),
    '}',
    'local next = 0',
    'local count = 0',
    'request = function()',
    '  next = next % #heads + 1',
    '  count = count + 1',
    '  return heads[next] .. separators[next] .. count .. tails[next]',
    'end',
    '',
  ].join('\n');
}
