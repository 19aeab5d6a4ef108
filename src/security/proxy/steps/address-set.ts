// A set of addresses and CIDRs asked "is this client in it?" on every request: a resource's black-
// and whitelist (up to 1,000 entries each) and the operator's global whitelist. Compiled once into
// sorted, merged ranges per family and answered by binary search (about 66 ns over 1,000 CIDRs in
// Node 24; net.BlockList scans its rules one by one). IPv4-mapped IPv6 is IPv4 on both sides: a
// client ::ffff:192.0.2.1 is 192.0.2.1, and an entry written ::ffff:192.0.2.0/120 is 192.0.2.0/24.
// Any other IPv6 entry (::/0 included) holds IPv6 addresses only.
import { ipv4, notAddress, parseAddress } from '../../../geo/address.ts';
import { clientWords, parseClient } from './parsed-client.ts';

export interface AddressSet {
  /** Whether the address (text, as Exchange.client) is in one of the set's networks. */
  has(address: string): boolean;
  /** Networks after merging: 0 for an empty set. */
  readonly ranges: number;
}

/** Inclusive ranges of one family, sorted by start, disjoint and not adjacent; each bound `width` words. */
interface Ranges {
  width: number;
  starts: Uint32Array;
  ends: Uint32Array;
  count: number;
}

const mappedPrefix = 96;

/** Compiles entries (`192.0.2.1`, `10.0.0.0/8`, `2001:db8::/32`); throws on one that is neither an
 *  address nor a CIDR, naming it. Host bits below the prefix are ignored. */
export function compileAddressSet(entries: Iterable<string>): AddressSet {
  const v4: bigint[][] = [];
  const v6: bigint[][] = [];
  const words = new Uint32Array(4);
  for (const entry of entries) {
    const slash = entry.indexOf('/');
    const end = slash < 0 ? entry.length : slash;
    const family = parseAddress(entry, words, 0, end);
    const mapped = family === ipv4 && entry.lastIndexOf(':', end) >= 0;
    const bits = family === ipv4 && !mapped ? 32 : 128;
    const prefix = slash < 0 ? bits : /^\d{1,3}$/.test(entry.slice(slash + 1)) ? Number(entry.slice(slash + 1)) : -1;
    if (family === notAddress || prefix < 0 || prefix > bits) throw new Error(`"${entry}" is neither an IP address nor a CIDR`);
    let value = family === ipv4 ? BigInt(words[0] ?? 0) : words.reduce((sum, word) => (sum << 32n) | BigInt(word), 0n);
    if (mapped && prefix >= mappedPrefix) {
      v4.push(range(value, prefix - mappedPrefix, 32));
    } else if (mapped) {
      // A network wider than the mapped block (::ffff:0:0/80): an IPv6 network like any other.
      value |= 0xffffn << 32n;
      v6.push(range(value, prefix, 128));
    } else {
      (family === ipv4 ? v4 : v6).push(range(value, prefix, bits));
    }
  }
  return setOf(merged(v4, 1), merged(v6, 4));
}

function range(value: bigint, prefix: number, bits: number): bigint[] {
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  return [value & ~hostMask, value | hostMask];
}

function merged(list: bigint[][], width: number): Ranges {
  list.sort(([a = 0n], [b = 0n]) => (a < b ? -1 : a > b ? 1 : 0));
  const out: bigint[][] = [];
  for (const [start = 0n, end = 0n] of list) {
    const last = out.at(-1);
    if (last?.[1] !== undefined && start <= last[1] + 1n) {
      if (end > last[1]) last[1] = end;
    } else {
      out.push([start, end]);
    }
  }
  const starts = new Uint32Array(out.length * width);
  const ends = new Uint32Array(out.length * width);
  for (const [i, [start = 0n, end = 0n]] of out.entries()) {
    for (let word = 0; word < width; word++) {
      const shift = BigInt(32 * (width - 1 - word));
      starts[i * width + word] = Number((start >> shift) & 0xffffffffn);
      ends[i * width + word] = Number((end >> shift) & 0xffffffffn);
    }
  }
  return { width, starts, ends, count: out.length };
}

/** -1, 0 or 1 as clientWords is below, equal to or above the bound at `index` of `bounds`. */
function compare(bounds: Uint32Array, index: number, width: number): number {
  for (let word = 0; word < width; word++) {
    const a = clientWords[word] ?? 0;
    const b = bounds[index * width + word] ?? 0;
    if (a !== b) return a < b ? -1 : 1;
  }
  return 0;
}

function contains({ width, starts, ends, count }: Ranges): boolean {
  // The last range starting at or below the address, then whether it reaches the address.
  let low = 0;
  let high = count - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (compare(starts, middle, width) >= 0) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found >= 0 && compare(ends, found, width) <= 0;
}

/** contains() for IPv4, on plain numbers: most clients are IPv4, and this is half the cost. */
function containsV4({ starts, ends, count }: Ranges): boolean {
  const value = clientWords[0] ?? 0;
  let low = 0;
  let high = count - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if ((starts[middle] ?? 0) <= value) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found >= 0 && value <= (ends[found] ?? 0);
}

function setOf(v4: Ranges, v6: Ranges): AddressSet {
  return {
    ranges: v4.count + v6.count,
    has(address) {
      const family = parseClient(address);
      if (family === notAddress) return false;
      return family === ipv4 ? containsV4(v4) : contains(v6);
    },
  };
}
