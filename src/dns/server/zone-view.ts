// One zone as the server holds it: nodes by owner name, each with its RRsets pre-encoded, plus the
// counts that tell empty non-terminals apart from names that do not exist (RFC 4592 §2.2.2).
import type { ZoneSigner } from '../dnssec/signer.ts';
import { labelEnd } from '../wire/name.ts';
import { emptyMatch, type RecordMatch } from '../pickers/record-match.ts';
import type { Picker } from '../pickers/validate.ts';

export interface ServedRecord {
  rdata: Buffer;
  /** RDATA as octets and compressible names (NS, CNAME, PTR, MX); see WireRecord. */
  parts?: readonly (Buffer | string)[] | undefined;
  /** The record's meta as the pickers test it. */
  match: RecordMatch;
  /** The name a CNAME, NS, MX or SRV points at (lower case, no trailing dot), for chasing and glue. */
  target: string | undefined;
}

export interface ServedRrset {
  type: number;
  ttl: number;
  /** Enabled records only, in their stored order. */
  records: ServedRecord[];
  pickers: Picker[] | null;
}

export type ZoneNode = Map<number, ServedRrset>;

export interface ZoneHead {
  id: number;
  name: string;
  serial: number;
  /** SOA RDATA with the current serial. */
  soaRdata: Buffer;
  /** TTL of the SOA and of negative answers (RFC 2308 §5: min of SOA TTL and MINIMUM). */
  negativeTtl: number;
  /** Present while DNSSEC is on: signs answers, and its key is published at the apex. */
  signer: ZoneSigner | undefined;
}

const soaType = 6;
const dnskeyType = 48;
const cdsType = 59;
const cdnskeyType = 60;
const keyTtl = 3600;

/** An RRset the zone fields make (SOA) or the zone's key (DNSKEY, CDS, CDNSKEY), never pickers. */
function fixedRrset(type: number, ttl: number, rdata: Buffer): ServedRrset {
  return { type, ttl, records: [{ rdata, match: emptyMatch, target: undefined }], pickers: null };
}

export class ZoneView {
  #head: ZoneHead;
  readonly #nodes = new Map<string, ZoneNode>();
  /** For every name above an existing node (up to the apex): how many nodes lie below it. */
  readonly #below = new Map<string, number>();

  constructor(head: ZoneHead) {
    this.#head = head;
    this.setNode(head.name, new Map());
  }

  get head(): ZoneHead {
    return this.#head;
  }

  /** New zone values (serial, SOA fields); the apex's SOA RRset follows. */
  set head(head: ZoneHead) {
    this.#head = head;
    this.setNode(head.name, this.#nodes.get(head.name) ?? (new Map() as ZoneNode));
  }

  get name(): string {
    return this.head.name;
  }

  node(name: string): ZoneNode | undefined {
    return this.#nodes.get(name);
  }

  /** The name exists: it owns data, or is an empty non-terminal above names that do. */
  exists(name: string): boolean {
    return this.#nodes.has(name) || (this.#below.get(name) ?? 0) > 0;
  }

  /** Replaces a node's RRsets; an empty map removes the node. The apex always holds the SOA. */
  setNode(name: string, rrsets: ZoneNode): void {
    if (name === this.#head.name) {
      rrsets.set(soaType, fixedRrset(soaType, this.#head.negativeTtl, this.#head.soaRdata));
      const key = this.#head.signer?.key;
      // CDS/CDNSKEY (RFC 7344) let a parent that scans for them keep its DS in step with the key.
      for (const [type, rdata] of [[dnskeyType, key?.dnskey], [cdnskeyType, key?.dnskey], [cdsType, key?.ds]] as const) {
        if (rdata === undefined) rrsets.delete(type);
        else rrsets.set(type, fixedRrset(type, keyTtl, rdata));
      }
    }
    const had = this.#nodes.has(name);
    const has = rrsets.size > 0;
    if (has) this.#nodes.set(name, rrsets);
    else this.#nodes.delete(name);
    if (had !== has) this.#count(name, has ? 1 : -1);
  }

  get size(): number {
    return this.#nodes.size;
  }

  #count(name: string, delta: number): void {
    for (let parent = parentOf(name); parent !== undefined && parent.length >= this.name.length; parent = parentOf(parent)) {
      const n = (this.#below.get(parent) ?? 0) + delta;
      if (n > 0) this.#below.set(parent, n);
      else this.#below.delete(parent);
      if (parent === this.name) break;
    }
  }
}

/** `a.b.c` → `b.c`, `c` → '' (the root), '' → undefined. */
export function parentOf(name: string): string | undefined {
  if (name === '') return undefined;
  const end = labelEnd(name, 0);
  return end >= name.length ? '' : name.slice(end + 1);
}
