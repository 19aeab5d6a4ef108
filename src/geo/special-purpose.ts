// Addresses that are not globally reachable have no geography: whoever asks from one sits behind a
// private network, and its place is not in any registry. Data sources still place some (the shipped
// country data puts 172.16.0.0/12, 192.168.0.0/16 and the documentation blocks in AU and JP), so
// these are unknown whatever a database says. From the IANA IPv4 and IPv6 special-purpose address
// registries (RFC 6890; "globally reachable: false"), plus multicast, which never sends queries.
import { ipv4, parseAddress, type Family } from './address.ts';

/** One family's blocks: network and mask of block i at [i * width, (i + 1) * width). */
interface Blocks {
  width: number;
  networks: Uint32Array;
  masks: Uint32Array;
}

function blocks(width: number, cidrs: string[]): Blocks {
  const networks = new Uint32Array(cidrs.length * width);
  const masks = new Uint32Array(cidrs.length * width);
  const words = new Uint32Array(4);
  for (const [index, cidr] of cidrs.entries()) {
    const [address = '', length = ''] = cidr.split('/');
    parseAddress(address, words);
    for (let word = 0; word < width; word++) {
      const bits = Math.min(32, Math.max(0, Number(length) - 32 * word));
      const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
      masks[index * width + word] = mask;
      networks[index * width + word] = ((words[word] ?? 0) & mask) >>> 0;
    }
  }
  return { width, networks, masks };
}

const v4 = blocks(1, [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
  '192.0.2.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
]);
const v6 = blocks(4, [
  '::/128', '::1/128', '64:ff9b:1::/48', '100::/64', '2001:2::/48', '2001:db8::/32', '3fff::/20', '5f00::/16',
  'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8',
]);

/** Whether a parsed address (see parseAddress) may be anywhere on the Internet. */
export function globallyReachable(family: Family, words: Uint32Array): boolean {
  const { width, networks, masks } = family === ipv4 ? v4 : v6;
  for (let offset = 0; offset < networks.length; offset += width) {
    let word = 0;
    while (word < width && (((words[word] ?? 0) & (masks[offset + word] ?? 0)) >>> 0) === networks[offset + word]) word++;
    if (word === width) return false;
  }
  return true;
}
