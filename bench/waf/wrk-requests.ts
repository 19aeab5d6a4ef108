// A wrk script sending a list of requests in turn on every connection (keep-alive), given as their
// exact bytes: the benign corpus as load, so the CPU a WAF costs is measured on what it inspects in
// practice (headers, cookies, form and JSON bodies) rather than on a bare GET.

/** A Lua string literal holding `bytes` exactly (decimal escapes for anything but printable ASCII). */
function luaString(bytes: Buffer): string {
  let out = '"';
  for (const b of bytes) out += b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${String(b).padStart(3, '0')}`;
  return `${out}"`;
}

/** Lua defining wrk's request(): each connection's thread walks the list, round and round. */
export function requestsScript(requests: Buffer[]): string {
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
