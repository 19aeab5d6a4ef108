// The paths rate rules and cookie challenges apply to: `*` matches any run of characters, `/`
// included (`/api/*` holds `/api/v1/users`), anything else matches itself, case-sensitively.
// Requests are matched by the path the origin will serve, not the bytes sent: `/%61pi/x`,
// `//api/x` and `/static/../api/x` are `/api/x` (as nginx normalises before matching locations),
// or a client would step around a rule by spelling its path another way.

export type PathMatcher = (path: string) => boolean;

export function compilePathPattern(pattern: string): PathMatcher {
  if (pattern === '*') return () => true;
  const parts = pattern.split('*');
  if (parts.length === 1) return (path) => path === pattern;
  const first = parts[0] ?? '';
  const last = parts.at(-1) ?? '';
  const middles = parts.slice(1, -1).filter((part) => part !== '');
  const fixed = first.length + last.length;
  return (path) => {
    if (path.length < fixed || !path.startsWith(first) || !path.endsWith(last)) return false;
    // Each middle part at its first place after the previous one: the leftmost fit leaves the most room.
    let at = first.length;
    const end = path.length - last.length;
    for (const part of middles) {
      const found = path.indexOf(part, at);
      if (found < 0 || found + part.length > end) return false;
      at = found + part.length;
    }
    return true;
  };
}

let lastSent: string | undefined;
let lastPath = '';

/** The path as the origin will read it: percent-escapes decoded, `//` merged, `.` and `..` resolved.
 *  Paths that need none of that (nearly all) come back as they are, without allocating. */
export function normalizedPath(sent: string): string {
  if (sent === lastSent) return lastPath;
  lastSent = sent;
  lastPath = sent.charCodeAt(0) === 0x2f && (sent.includes('%') || sent.includes('//') || sent.includes('/.')) ? normalize(sent) : sent;
  return lastPath;
}

function normalize(sent: string): string {
  let path = sent;
  try {
    path = decodeURIComponent(sent);
  } catch {
    // Malformed escapes: the origin cannot decode them either; match the text as sent.
  }
  const segments: string[] = [];
  const parts = path.split('/');
  for (const segment of parts) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const last = parts.at(-1);
  const directory = segments.length > 0 && (last === '' || last === '.' || last === '..');
  return `/${segments.join('/')}${directory ? '/' : ''}`;
}
