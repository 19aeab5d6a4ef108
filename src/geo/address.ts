// Address text to numbers without allocating: every GeoIP lookup on the DNS path starts here, and
// the range tables and the .mmdb search tree both want the address as bits, not as text.
// Results go into a caller's scratch array of big-endian 32-bit words: one for IPv4, four for IPv6.

export const notAddress = 0;
export const ipv4 = 4;
export const ipv6 = 6;
export type Family = typeof notAddress | typeof ipv4 | typeof ipv6;

/** The eight 16-bit groups of the IPv6 address being parsed (one parse at a time: JS is single-threaded). */
const groups = new Uint16Array(8);

/** Parses dotted IPv4 or IPv6 text into `words`. IPv4-mapped IPv6 (::ffff:a.b.c.d) comes back as
 *  the IPv4 address it carries, the form the data sources index it by. A zone (%eth0) is ignored.
 *  `start` and `end` delimit the address inside a larger text (a whole CSV file, when loading). */
export function parseAddress(text: string, words: Uint32Array, start = 0, end = text.length): Family {
  if (find(text, 0x3a, start, end) === end) {
    const value = ipv4Value(text, start, end);
    if (value < 0) return notAddress;
    words[0] = value;
    return ipv4;
  }
  if (!parseGroups(text, start, find(text, 0x25, start, end))) return notAddress;
  for (let word = 0; word < 4; word++) words[word] = (groups[2 * word] ?? 0) * 0x10000 + (groups[2 * word + 1] ?? 0);
  if (words[0] === 0 && words[1] === 0 && words[2] === 0xffff) {
    words[0] = words[3] ?? 0;
    return ipv4;
  }
  return ipv6;
}

/** The position of a character code in text[start, end), or end (indexOf would search past end). */
function find(text: string, c: number, start: number, end: number): number {
  let i = start;
  while (i < end && text.charCodeAt(i) !== c) i++;
  return i;
}

/** The IPv4 address in text[start, end) as a number, or -1. */
function ipv4Value(text: string, start: number, end: number): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2e) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
    } else if (c >= 0x30 && c <= 0x39) {
      octet = octet * 10 + c - 0x30;
      if (++digits > 3 || octet > 255) return -1;
    } else {
      return -1;
    }
  }
  return digits === 0 || dots !== 3 ? -1 : value * 256 + octet;
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/** Fills `groups` from the IPv6 text in [start, end) (RFC 4291 §2.2: '::' once, an IPv4 tail last);
 *  false when it is not one. */
function parseGroups(text: string, start: number, end: number): boolean {
  let count = 0;
  let gap = -1;
  let i = start;
  if (text.charCodeAt(i) === 0x3a) {
    if (i + 1 >= end || text.charCodeAt(i + 1) !== 0x3a) return false;
    gap = 0;
    i += 2;
  }
  while (i < end) {
    let value = 0;
    let j = i;
    while (j < end) {
      const digit = hexDigit(text.charCodeAt(j));
      if (digit < 0) break;
      value = value * 16 + digit;
      j++;
    }
    if (j < end && text.charCodeAt(j) === 0x2e) {
      const tail = count <= 6 ? ipv4Value(text, i, end) : -1;
      if (tail < 0) return false;
      groups[count++] = tail >>> 16;
      groups[count++] = tail & 0xffff;
      break;
    }
    if (j === i || j - i > 4 || count === 8) return false;
    groups[count++] = value;
    if (j === end) break;
    if (text.charCodeAt(j) !== 0x3a) return false;
    i = j + 1;
    if (i < end && text.charCodeAt(i) === 0x3a) {
      if (gap >= 0) return false;
      gap = count;
      i++;
    } else if (i === end) {
      return false;
    }
  }
  if (gap < 0) return count === 8;
  if (count > 7) return false;
  // Slide the groups after '::' to the end, then zero what it stands for.
  const after = count - gap;
  for (let k = 1; k <= after; k++) groups[8 - k] = groups[count - k] ?? 0;
  groups.fill(0, gap, 8 - after);
  return true;
}
