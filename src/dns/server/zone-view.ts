// One zone as the server holds it: nodes by owner name, each with its RRsets pre-encoded, plus the
// counts that tell empty non-terminals apart from names that do not exist (RFC 4592 §2.2.2). Most
// names hold one RRset, kept without an array around it (docs/dns-server.md, "Memory").
import type { ZoneSigner } from '../dnssec/signer.ts';
import { labelEnd } from '../wire/name.ts';
import { typeCode } from '../wire/type-codes.ts';
import type { ServedRrset } from './served-rrset.ts';
import type { ZoneImage } from './zone-image.ts';

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

const keyTtl = 3600;
const headTypes = new Set<number>([typeCode.soa, typeCode.dnskey, typeCode.cds, typeCode.cdnskey]);

/** An RRset the zone fields make (SOA) or the zone's key (DNSKEY, CDS, CDNSKEY), never pickers. */
function fixedRrset(type: number, ttl: number, rdata: Buffer): ServedRrset {
  return { type, ttl, rdata: rdata.toString('latin1'), names: undefined, pickers: null };
}

/** The apex's RRsets with those the head makes: the SOA, and while signing the key. */
function apexRrsets(head: ZoneHead, node: ZoneNode): ServedRrset[] {
  const out = rrsetsOf(node).filter((r) => !headTypes.has(r.type));
  out.push(fixedRrset(typeCode.soa, head.negativeTtl, head.soaRdata));
  const key = head.signer?.key;
  if (key !== undefined) {
    // CDS/CDNSKEY (RFC 7344) let a parent that scans for them keep its DS in step with the key.
    out.push(fixedRrset(typeCode.dnskey, keyTtl, key.dnskey), fixedRrset(typeCode.cdnskey, keyTtl, key.dnskey), fixedRrset(typeCode.cds, keyTtl, key.ds));
  }
  return out.sort((a, b) => a.type - b.type);
}

export class ZoneView {
  #head: ZoneHead;
  /** The zone as loaded, shared by every thread of the process; undefined: #nodes holds all of it. */
  readonly #image: ZoneImage | undefined;
  /**
   * The names this thread holds itself: all of a zone without image; with one, the apex, names
   * with pickers and every name changed since the image was built (null: removed from the image).
   */
  readonly #nodes = new Map<string, ZoneNode | null>();
  /** For every name above a node (up to the apex): how many nodes lie below it, besides the image's count. */
  readonly #below = new Map<string, number>();
  #size: number;

  constructor(head: ZoneHead, image?: ZoneImage) {
    this.#head = head;
    this.#image = image;
    this.#size = image?.names ?? 0;
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

  /** The image this view reads beneath its own names. */
  get image(): ZoneImage | undefined {
    return this.#image;
  }

  /** The names this thread holds itself, removed ones included: with the image, all the view is. */
  ownNames(): string[] {
    return [...this.#nodes.keys()];
  }

  node(name: string): ZoneNode | undefined {
    const own = this.#nodes.get(name);
    if (own !== undefined) return own ?? undefined;
    const image = this.#image;
    if (image === undefined) return undefined;
    const at = image.find(name);
    return at >= 0 && image.hasData(at) ? image.node(at) : undefined;
  }

  /** The name exists: it owns data, or is an empty non-terminal above names that do. */
  exists(name: string): boolean {
    const own = this.#nodes.get(name);
    if (own) return true;
    const below = this.#below.get(name) ?? 0;
    const image = this.#image;
    const at = image === undefined ? -1 : image.find(name);
    if (image === undefined || at < 0) return below > 0;
    return (own === undefined && image.hasData(at)) || image.below(at) + below > 0;
  }

  /** Whether the image has data at `name` (this thread may have replaced or removed it since). */
  #inImage(name: string): boolean {
    const image = this.#image;
    if (image === undefined) return false;
    const at = image.find(name);
    return at >= 0 && image.hasData(at);
  }

  /** Replaces a node's RRsets; none (an empty array) removes the node. The apex always holds the SOA. */
  setNode(name: string, rrsets: ZoneNode): void {
    const node = name === this.#head.name ? apexRrsets(this.#head, rrsets) : rrsets;
    const own = this.#nodes.get(name);
    const inImage = this.#inImage(name);
    const had = own === undefined ? inImage : own !== null;
    const has = !isList(node) || node.length > 0;
    if (has) this.#nodes.set(name, node);
    else if (inImage) this.#nodes.set(name, null);
    else this.#nodes.delete(name);
    if (had !== has) {
      this.#size += has ? 1 : -1;
      this.#count(name, has ? 1 : -1);
    }
  }

  get size(): number {
    return this.#size;
  }

  /**
   * Every owner name with its RRsets, the apex first (a zone transfer's order): this thread's own,
   * then the image's it does not replace. The names as they are now: changes applied while the
   * iteration goes on are not seen (the image never changes; this thread's own names are copied).
   */
  entries(): IterableIterator<[string, ZoneNode]> {
    const own = new Map(this.#nodes);
    const image = this.#image;
    return (function* (): Generator<[string, ZoneNode]> {
      for (const [name, node] of own) if (node !== null) yield [name, node];
      if (image === undefined) return;
      for (const [name, at] of image.entries()) if (!own.has(name)) yield [name, image.read(at)];
    })();
  }

  #count(name: string, delta: number): void {
    for (let parent = parentOf(name); parent !== undefined && parent.length >= this.name.length; parent = parentOf(parent)) {
      const n = (this.#below.get(parent) ?? 0) + delta;
      if (n !== 0) this.#below.set(parent, n);
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
