// One zone as the server holds it: nodes by owner name, each with its RRsets pre-encoded, plus the
// counts that tell empty non-terminals apart from names that do not exist (RFC 4592 §2.2.2). Most
// names hold one RRset, kept without an array around it (docs/dns-server.md, "Memory").
import type { ZoneSigner } from '../dnssec/signer.ts';
import { labelEnd } from '../wire/name.ts';
import type { ServedRrset } from './served-rrset.ts';

/** A name's RRsets: a lone one, or several in type order. */
export type ZoneNode = ServedRrset | readonly ServedRrset[];

function isList(node: ZoneNode): node is readonly ServedRrset[] {
  return Array.isArray(node);
}

export function rrsetsOf(node: ZoneNode): readonly ServedRrset[] {
  return isList(node) ? node : [node];
}

export function rrsetOf(node: ZoneNode | undefined, type: number): ServedRrset | undefined {
  if (node === undefined) return undefined;
  if (!isList(node)) return node.type === type ? node : undefined;
  for (const rrset of node) if (rrset.type === type) return rrset;
  return undefined;
}

export interface ZoneHead {
  id: number;
  name: string;
  serial: number;
  /** The store's zone version this view has every change up to (zone-sync.ts). */
  version: number;
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
const headTypes = new Set([soaType, dnskeyType, cdsType, cdnskeyType]);

/** An RRset the zone fields make (SOA) or the zone's key (DNSKEY, CDS, CDNSKEY), never pickers. */
function fixedRrset(type: number, ttl: number, rdata: Buffer): ServedRrset {
  return { type, ttl, rdata: rdata.toString('latin1'), names: undefined, pickers: null };
}

/** The apex's RRsets with those the head makes: the SOA, and while signing the key. */
function apexRrsets(head: ZoneHead, node: ZoneNode): ServedRrset[] {
  const out = rrsetsOf(node).filter((r) => !headTypes.has(r.type));
  out.push(fixedRrset(soaType, head.negativeTtl, head.soaRdata));
  const key = head.signer?.key;
  if (key !== undefined) {
    // CDS/CDNSKEY (RFC 7344) let a parent that scans for them keep its DS in step with the key.
    out.push(fixedRrset(dnskeyType, keyTtl, key.dnskey), fixedRrset(cdnskeyType, keyTtl, key.dnskey), fixedRrset(cdsType, keyTtl, key.ds));
  }
  return out.sort((a, b) => a.type - b.type);
}

export class ZoneView {
  #head: ZoneHead;
  readonly #nodes = new Map<string, ZoneNode>();
  /** For every name above an existing node (up to the apex): how many nodes lie below it. */
  readonly #below = new Map<string, number>();

  constructor(head: ZoneHead) {
    this.#head = head;
    this.setNode(head.name, []);
  }

  get head(): ZoneHead {
    return this.#head;
  }

  /** New zone values (serial, SOA fields); the apex's SOA RRset follows. */
  set head(head: ZoneHead) {
    this.#head = head;
    this.setNode(head.name, this.#nodes.get(head.name) ?? []);
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

  /** Replaces a node's RRsets; none (an empty array) removes the node. The apex always holds the SOA. */
  setNode(name: string, rrsets: ZoneNode): void {
    const node = name === this.#head.name ? apexRrsets(this.#head, rrsets) : rrsets;
    const had = this.#nodes.has(name);
    const has = !isList(node) || node.length > 0;
    if (has) this.#nodes.set(name, node);
    else this.#nodes.delete(name);
    if (had !== has) this.#count(name, has ? 1 : -1);
  }

  get size(): number {
    return this.#nodes.size;
  }

  /** Every owner name with its RRsets, the apex first (a zone transfer's order). */
  entries(): IterableIterator<[string, ZoneNode]> {
    return this.#nodes.entries();
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
