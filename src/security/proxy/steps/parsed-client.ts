// The client address of the request being checked, parsed once for all the steps: the access lists,
// geo and the rate rules each want it as bits, and one request passes them one after the other, all
// synchronously. The last address parsed is remembered (a keep-alive connection sends many requests
// from one address), so the steps of one request parse it once and allocate nothing for it.
import { ipv4, ipv6, notAddress, parseAddress, type Family } from '../../../geo/address.ts';
import { ipv6ClientPrefix } from '../../../net/client-key.ts';

/** The words of the last address parsed: one for IPv4, four for IPv6 (see geo/address.ts). Read only. */
export const clientWords = new Uint32Array(4);

let lastText: string | undefined;
let lastFamily: Family = notAddress;
let lastKey: string | undefined;

/** Parses `address` into clientWords (unless it is the last one parsed) and returns its family;
 *  IPv4-mapped IPv6 comes back as IPv4. Read clientWords before anything else parses. */
export function parseClient(address: string): Family {
  if (address !== lastText) {
    lastFamily = parseAddress(address, clientWords);
    lastText = address;
    lastKey = undefined;
  }
  return lastFamily;
}

/** 32-bit words of an IPv6 address naming the client: its /64 (net/client-key.ts's rule). */
const clientWordsV6 = ipv6ClientPrefix / 32;

/** Who the client is for per-client counters: an IPv4 address, or an IPv6 /64 (net/client-key.ts);
 *  what is not an address, as it is. Computed once per address. */
export function clientKeyOf(address: string): string {
  const family = parseClient(address);
  if (lastKey !== undefined) return lastKey;
  if (family === ipv4 && canonicalIpv4(address)) {
    lastKey = address;
  } else if (family === ipv4) {
    const value = clientWords[0] ?? 0;
    lastKey = `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
  } else if (family === ipv6) {
    let key = '';
    for (let word = 0; word < clientWordsV6; word++) {
      const value = clientWords[word] ?? 0;
      key += `${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}:`;
    }
    lastKey = `${key}:/${ipv6ClientPrefix}`;
  } else {
    lastKey = address;
  }
  return lastKey;
}

/** Whether parsed IPv4 text is already in its one spelling: no `::ffff:` and no leading zero. */
function canonicalIpv4(address: string): boolean {
  for (let i = 0; i < address.length; i++) {
    const c = address.charCodeAt(i);
    if (c === 0x3a) return false;
    if (c === 0x30 && (i === 0 || address.charCodeAt(i - 1) === 0x2e) && i + 1 < address.length && address.charCodeAt(i + 1) !== 0x2e) return false;
  }
  return true;
}
