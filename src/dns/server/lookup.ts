// The authoritative lookup (RFC 1034 §4.3.2, RFC 2308, RFC 4592, RFC 6604, RFC 8482): from a
// question to the answer, authority and additional sections. Pure over the zone views. For a query
// with the DO bit to a zone with DNSSEC on, each authoritative RRset carries its RRSIG and every
// negative or wildcard answer its proof (RFC 4035 §3.1, RFC 9824).
import { nameErrorProof, noCloserMatchProof, noDataProof } from '../dnssec/denial.ts';
import { maxSignedTtl, type ZoneSigner } from '../dnssec/signer.ts';
import { typeCode } from '../wire/type-codes.ts';
import type { ServedZones } from './served-zones.ts';
import type { WireRecord } from './response.ts';
import { allRecords, recordCount, recordValue, targetOf, type ServedRrset } from './served-rrset.ts';
import { parentOf, rrsetOf, rrsetsOf, type ZoneNode, type ZoneView } from './zone-view.ts';

export interface Sections {
  rcode: 0 | 3;
  authoritative: boolean;
  answer: WireRecord[];
  authority: WireRecord[];
  additional: WireRecord[];
  /** Additional records that must fit (referral glue), or the answer is truncated. */
  requiredAdditional: number;
}

export interface LookupOptions {
  /** Over UDP, ANY gets one RRset only (RFC 8482). */
  udp: boolean;
  /** Chooses the records of an RRset for this query (pickers), as positions in it; all when static. */
  select: (rrset: ServedRrset) => readonly number[];
  /** The query's DO bit: signed zones answer with signatures and proofs. */
  dnssecOk: boolean;
  /** The query's CO bit (RFC 9824 §4): a compact proof of a missing name keeps NXDOMAIN. */
  compactOk: boolean;
}

const maxChain = 16;

/** The records of an RRset at the chosen positions. */
function records(owner: string, rrset: ServedRrset, chosen: readonly number[], ttl: number): WireRecord[] {
  const { type, rdata, names } = rrset;
  return chosen.map((i) => ({ name: owner, type, ttl, rdata: recordValue(rdata, i), rdataName: names === undefined ? undefined : recordValue(names, i) }));
}

/** Records of an RRset as answered, without signature (glue, referral NS, additional data). */
function plain(owner: string, rrset: ServedRrset, options: LookupOptions): WireRecord[] {
  return records(owner, rrset, options.select(rrset), rrset.ttl);
}

/** The names the chosen records point at. */
function targets(rrset: ServedRrset, chosen: readonly number[]): (string | undefined)[] {
  return chosen.map((i) => targetOf(rrset, i));
}

/**
 * Authoritative records of an RRset, signed when the zone signs this answer. `signedAs` is the
 * owner the signature is made for: the wildcard's name when the RRset answers through it.
 */
function authoritative(signer: ZoneSigner | undefined, owner: string, rrset: ServedRrset, options: LookupOptions, signedAs = owner): WireRecord[] {
  if (signer === undefined) return plain(owner, rrset, options);
  const chosen = options.select(rrset);
  if (chosen.length === 0) return [];
  const ttl = Math.min(rrset.ttl, maxSignedTtl);
  const out = records(owner, rrset, chosen, ttl);
  out.push({ name: owner, type: typeCode.rrsig, ttl, rdata: signer.rrsetSignature(rrset, chosen, signedAs) });
  return out;
}

function soaRecords(zone: ZoneView, signer: ZoneSigner | undefined, ttl: number): WireRecord[] {
  const soa: WireRecord = { name: zone.name, type: typeCode.soa, ttl, rdata: zone.head.soaRdata };
  const rrset = rrsetOf(zone.node(zone.name), typeCode.soa);
  if (signer === undefined || rrset === undefined) return [soa];
  return [soa, { name: zone.name, type: typeCode.rrsig, ttl, rdata: signer.rrsetSignature(rrset, allRecords(recordCount(rrset)), zone.name) }];
}

/** The types an NSEC lists for a name: at a delegation only what the parent holds there (NS, DS). */
function typesAt(zone: ZoneView, name: string, node: ZoneNode | undefined): number[] {
  if (node === undefined) return [];
  if (name !== zone.name && rrsetOf(node, typeCode.ns) !== undefined) return rrsetOf(node, typeCode.ds) !== undefined ? [typeCode.ns, typeCode.ds] : [typeCode.ns];
  return rrsetsOf(node).map((r) => r.type);
}

/** The closest delegation at or above `name` and below the apex; `name` itself only if not asking DS. */
function delegation(zone: ZoneView, name: string, qtype: number): { cut: string; ns: ServedRrset } | undefined {
  let found: { cut: string; ns: ServedRrset } | undefined;
  for (let at: string | undefined = name; at !== undefined && at !== zone.name && at.length > zone.name.length; at = parentOf(at)) {
    if (at === name && qtype === typeCode.ds) continue;
    const ns = rrsetOf(zone.node(at), typeCode.ns);
    if (ns !== undefined) found = { cut: at, ns };
  }
  return found;
}

/** Address records of names inside the zone, for glue and additional section processing. */
function addresses(zone: ZoneView, targets: readonly (string | undefined)[], options: LookupOptions): WireRecord[] {
  const out: WireRecord[] = [];
  for (const target of new Set(targets)) {
    if (target === undefined || !(target === zone.name || target.endsWith(`.${zone.name}`))) continue;
    const node = zone.node(target);
    for (const t of [typeCode.a, typeCode.aaaa]) {
      const rrset = rrsetOf(node, t);
      if (rrset) out.push(...plain(target, rrset, options));
    }
  }
  return out;
}

function referral(zone: ZoneView, signer: ZoneSigner | undefined, cut: { cut: string; ns: ServedRrset }, sections: Sections, options: LookupOptions): void {
  sections.authority.push(...plain(cut.cut, cut.ns, options));
  if (signer !== undefined) {
    // A secure delegation shows its signed DS; an insecure one the NSEC proving there is none.
    const node = zone.node(cut.cut);
    const ds = rrsetOf(node, typeCode.ds);
    if (ds !== undefined) sections.authority.push(...authoritative(signer, cut.cut, ds, options));
    else sections.authority.push(...noDataProof(signer, zone.name, cut.cut, typesAt(zone, cut.cut, node), zone.head.negativeTtl));
  }
  const glue = addresses(zone, targets(cut.ns, allRecords(recordCount(cut.ns))), options);
  sections.additional.push(...glue);
  sections.requiredAdditional += glue.length;
}

interface Answering {
  node: ZoneNode | undefined;
  exists: boolean;
  /** Set when a wildcard answers: its owner and the closest encloser it hangs from. */
  wildcard?: { owner: string; encloser: string } | undefined;
}

/** The node that answers for `name`: itself, or the wildcard that covers it (RFC 4592 §3.3.1). */
function answeringNode(zone: ZoneView, name: string): Answering {
  const own = zone.node(name);
  if (own !== undefined) return { node: own, exists: true };
  if (zone.exists(name)) return { node: undefined, exists: true };
  // The closest encloser: the longest existing ancestor; an empty non-terminal blocks wildcards above it.
  let encloser = parentOf(name) ?? zone.name;
  while (encloser !== zone.name && !zone.exists(encloser)) encloser = parentOf(encloser) ?? zone.name;
  const owner = encloser === '' ? '*' : `*.${encloser}`;
  const wildcard = zone.node(owner);
  return { node: wildcard, exists: wildcard !== undefined, wildcard: wildcard === undefined ? undefined : { owner, encloser } };
}

/** The encloser's child on the way down to `name`. */
function nextCloser(name: string, encloser: string): string {
  let closer = name;
  for (let up = parentOf(closer); up !== undefined && up !== encloser; up = parentOf(up)) closer = up;
  return closer;
}

/** For an answer through a wildcard: the proof that the question's name has no closer match. */
function closerProof(zone: ZoneView, signer: ZoneSigner | undefined, name: string, wildcard: Answering['wildcard']): WireRecord[] {
  if (signer === undefined || wildcard === undefined) return [];
  const encloser = { name: wildcard.encloser, types: typesAt(zone, wildcard.encloser, zone.node(wildcard.encloser)) };
  return noCloserMatchProof(signer, zone.name, nextCloser(name, wildcard.encloser), encloser, zone.head.negativeTtl);
}

/** NODATA: the SOA, and for a signed answer the NSEC listing what the name does hold. */
function noData(zone: ZoneView, signer: ZoneSigner | undefined, name: string, types: number[], ttl: number, sections: Sections): void {
  sections.authority.push(...soaRecords(zone, signer, ttl));
  if (signer !== undefined) sections.authority.push(...noDataProof(signer, zone.name, name, types, ttl));
}

/** The records answering `qtype` at a node, or undefined when it holds none (then NODATA). */
function positive(zone: ZoneView, signer: ZoneSigner | undefined, name: string, node: ZoneNode, qtype: number, options: LookupOptions, signedAs: string): WireRecord[] | undefined {
  if (qtype === typeCode.any || (qtype === typeCode.rrsig && signer !== undefined)) {
    // RFC 8482: over UDP, one RRset stands for the node; an RRSIG query gets the signatures alone.
    const out: WireRecord[] = [];
    const all = rrsetsOf(node);
    for (const rrset of options.udp ? all.slice(0, 1) : all) {
      const records = authoritative(signer, name, rrset, options, signedAs);
      out.push(...(qtype === typeCode.rrsig ? records.filter((r) => r.type === typeCode.rrsig) : records));
    }
    return out.length > 0 ? out : undefined;
  }
  const wanted = rrsetOf(node, qtype);
  return wanted === undefined ? undefined : authoritative(signer, name, wanted, options, signedAs);
}

export function lookup(zones: ServedZones, first: ZoneView, qname: string, qtype: number, options: LookupOptions): Sections {
  const sections: Sections = { rcode: 0, authoritative: true, answer: [], authority: [], additional: [], requiredAdditional: 0 };
  const seen = new Set<string>();
  let zone = first;
  let name = qname;
  for (let step = 0; step < maxChain; step++) {
    seen.add(name);
    const signer = options.dnssecOk ? zone.head.signer : undefined;
    const negativeTtl = zone.head.negativeTtl;
    const cut = delegation(zone, name, qtype);
    if (cut !== undefined) {
      // A referral for the question itself is not authoritative; after a CNAME it rides along.
      if (step === 0) sections.authoritative = false;
      referral(zone, signer, cut, sections, options);
      return sections;
    }
    const { node, exists, wildcard } = answeringNode(zone, name);
    if (!exists) {
      sections.authority.push(...soaRecords(zone, signer, negativeTtl));
      if (signer === undefined || options.compactOk) sections.rcode = 3;
      if (signer !== undefined) sections.authority.push(...nameErrorProof(signer, zone.name, name, negativeTtl));
      return sections;
    }
    // A wildcard's answer is signed as the wildcard and proven to be the closest match.
    const signedAs = wildcard?.owner ?? name;
    // Online signing has no NSEC chain: an NSEC query gets the one a NODATA would carry.
    if (qtype === typeCode.nsec && signer !== undefined) {
      sections.answer.push(...noDataProof(signer, zone.name, name, typesAt(zone, name, node), negativeTtl));
      return sections;
    }
    const answer = node === undefined ? undefined : positive(zone, signer, name, node, qtype, options, signedAs);
    if (answer !== undefined && answer.length > 0) {
      sections.answer.push(...answer);
      sections.authority.push(...closerProof(zone, signer, name, wildcard));
      const wanted = rrsetOf(node, qtype);
      if (wanted !== undefined && (qtype === typeCode.mx || qtype === typeCode.srv || qtype === typeCode.ns)) {
        sections.additional.push(...addresses(zone, targets(wanted, options.select(wanted)), options));
      }
      return sections;
    }
    const wanted = rrsetOf(node, qtype);
    if (wanted !== undefined) {
      // Pickers left nothing: a NODATA cached no longer than the RRset itself would have been.
      const ttl = Math.min(negativeTtl, wanted.ttl);
      noData(zone, signer, name, typesAt(zone, name, node).filter((t) => t !== qtype), ttl, sections);
      return sections;
    }
    const cname = rrsetOf(node, typeCode.cname);
    if (cname === undefined || qtype === typeCode.cname) {
      // A wildcard's NODATA is shown as the name's own (RFC 9824 §3.4): no separate closer proof.
      noData(zone, signer, name, typesAt(zone, name, node), negativeTtl, sections);
      return sections;
    }
    sections.answer.push(...authoritative(signer, name, cname, options, signedAs));
    sections.authority.push(...closerProof(zone, signer, name, wildcard));
    const target = targetOf(cname, 0);
    const next = target === undefined ? undefined : zones.find(target);
    // The chain ends at a name we do not host, or at a loop: the resolver takes it from there.
    if (target === undefined || next === undefined || seen.has(target)) return sections;
    zone = next;
    name = target;
  }
  return sections;
}
