// Which origin a request goes to, with nginx's upstream semantics: smooth weighted round robin over
// the primaries that are available; the backups only when no primary is; `down` never. With
// `service_iphash`, nginx's ip_hash: a client (IPv4 by its first three octets, IPv6 by its whole
// address) hashes onto the weighted table of every primary, `down` ones included, so that when one
// origin is out only its own clients move (they rehash, up to 20 times, then fall back to the round
// robin). nginx refuses `backup` with ip_hash; here the backups take over hashed the same way.
import { ipv4, notAddress, parseAddress } from '../../../geo/address.ts';
import type { OriginMode } from '../policy.ts';
import type { PassiveHealth } from './passive-health.ts';

export interface Peer {
  weight: number;
  mode: OriginMode;
  health: PassiveHealth;
}

/** A hashing table: the peers in policy order and the sum of their weights. */
interface HashTable {
  peers: number[];
  totalWeight: number;
}

/** nginx gives up rehashing a client whose origin is out after this many attempts. */
const maxRehashes = 20;

/** The client address being hashed, as parsed by parseAddress (one at a time: JS is single-threaded). */
const words = new Uint32Array(4);

export class Balancer {
  readonly #peers: readonly Peer[];
  /** Smooth weighted round robin's running weight of each peer. */
  readonly #current: Float64Array;
  readonly #primaries: number[] = [];
  readonly #backups: number[] = [];
  readonly #primaryHash: HashTable | undefined;
  readonly #backupHash: HashTable | undefined;

  constructor(peers: readonly Peer[], ipHash: boolean) {
    this.#peers = peers;
    this.#current = new Float64Array(peers.length);
    const hashedPrimaries: HashTable = { peers: [], totalWeight: 0 };
    const hashedBackups: HashTable = { peers: [], totalWeight: 0 };
    for (const [index, peer] of peers.entries()) {
      if (peer.mode === 'primary') this.#primaries.push(index);
      if (peer.mode === 'backup') this.#backups.push(index);
      // A `down` origin keeps its place in the table: taking it down moves only its own clients.
      const table = peer.mode === 'backup' ? hashedBackups : hashedPrimaries;
      table.peers.push(index);
      table.totalWeight += peer.weight;
    }
    this.#primaryHash = ipHash && this.#primaries.length > 0 ? hashedPrimaries : undefined;
    this.#backupHash = ipHash && this.#backups.length > 0 ? hashedBackups : undefined;
  }

  /**
   * The index of the peer for this request, or -1 when none is available. `tried`: peers this
   * request already failed on (a retry), or undefined. `now`: performance.now().
   */
  pick(client: string, tried: readonly number[] | undefined, now: number): number {
    let index = -1;
    if (this.#primaryHash !== undefined) index = this.#hashed(this.#primaryHash, client, tried, now);
    if (index === -1) index = this.#roundRobin(this.#primaries, tried, now);
    if (index === -1 && this.#backupHash !== undefined) index = this.#hashed(this.#backupHash, client, tried, now);
    if (index === -1) index = this.#roundRobin(this.#backups, tried, now);
    if (index !== -1) this.#peers[index]?.health.chosen(now);
    return index;
  }

  #usable(index: number, tried: readonly number[] | undefined, now: number): boolean {
    const peer = this.#peers[index];
    return peer !== undefined && peer.mode !== 'down' && peer.health.available(now) && (tried === undefined || !tried.includes(index));
  }

  /** nginx's smooth weighted round robin (ngx_http_upstream_get_peer): 5:1:1 gives a a b a c a a. */
  #roundRobin(group: readonly number[], tried: readonly number[] | undefined, now: number): number {
    const current = this.#current;
    let best = -1;
    let total = 0;
    for (let k = 0; k < group.length; k++) {
      const index = group[k] ?? 0;
      if (!this.#usable(index, tried, now)) continue;
      const weight = this.#peers[index]?.weight ?? 0;
      current[index] = (current[index] ?? 0) + weight;
      total += weight;
      if (best === -1 || (current[index] ?? 0) > (current[best] ?? 0)) best = index;
    }
    if (best !== -1) current[best] = (current[best] ?? 0) - total;
    return best;
  }

  /** nginx's ip_hash (ngx_http_upstream_get_ip_hash_peer), or -1 to fall back to the round robin. */
  #hashed(table: HashTable, client: string, tried: readonly number[] | undefined, now: number): number {
    const family = parseAddress(client, words);
    if (family === notAddress) return -1;
    const bytes = family === ipv4 ? 3 : 16;
    let hash = 89;
    for (let attempt = 0; attempt < maxRehashes; attempt++) {
      for (let b = 0; b < bytes; b++) hash = (hash * 113 + (((words[b >> 2] ?? 0) >>> (24 - 8 * (b & 3))) & 0xff)) % 6271;
      let w = hash % table.totalWeight;
      let k = 0;
      let index = table.peers[0] ?? 0;
      for (;;) {
        const weight = this.#peers[index]?.weight ?? 0;
        if (w < weight) break;
        w -= weight;
        index = table.peers[++k] ?? 0;
      }
      if (this.#usable(index, tried, now)) return index;
    }
    return -1;
  }
}
