// The authoritative lookup (RFC 1034 §4.3.2, RFC 2308, RFC 4592, RFC 6604, RFC 8482): from a
// question to the answer, authority and additional sections. Pure over the zone views.
import type { ServedZones } from './served-zones.ts';
import type { WireRecord } from './response.ts';
import { parentOf, type ServedRrset, type ZoneNode, type ZoneView } from './zone-view.ts';

export const type = { a: 1, ns: 2, cname: 5, soa: 6, mx: 15, aaaa: 28, srv: 33, ds: 43, any: 255 } as const;

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
  /** Chooses the records of an RRset for this query (pickers); identity when static. */
  select: (rrset: ServedRrset) => ServedRrset['records'];
}

const maxChain = 16;

function records(owner: string, rrset: ServedRrset, options: LookupOptions): WireRecord[] {
  return options.select(rrset).map((r) => ({ name: owner, type: rrset.type, ttl: rrset.ttl, rdata: r.rdata, parts: r.parts }));
}

function soaRecord(zone: ZoneView): WireRecord {
  return { name: zone.name, type: type.soa, ttl: zone.head.negativeTtl, rdata: zone.head.soaRdata };
}

/** The closest delegation at or above `name` and below the apex; `name` itself only if not asking DS. */
function delegation(zone: ZoneView, name: string, qtype: number): { cut: string; ns: ServedRrset } | undefined {
  let found: { cut: string; ns: ServedRrset } | undefined;
  for (let at: string | undefined = name; at !== undefined && at !== zone.name && at.length > zone.name.length; at = parentOf(at)) {
    if (at === name && qtype === type.ds) continue;
    const ns = zone.node(at)?.get(type.ns);
    if (ns !== undefined) found = { cut: at, ns };
  }
  return found;
}

/** Address records of names inside the zone, for glue and additional section processing. */
function addresses(zone: ZoneView, targets: (string | undefined)[], options: LookupOptions): WireRecord[] {
  const out: WireRecord[] = [];
  for (const target of new Set(targets)) {
    if (target === undefined || !(target === zone.name || target.endsWith(`.${zone.name}`))) continue;
    const node = zone.node(target);
    for (const t of [type.a, type.aaaa]) {
      const rrset = node?.get(t);
      if (rrset) out.push(...records(target, rrset, options));
    }
  }
  return out;
}

function referral(zone: ZoneView, cut: { cut: string; ns: ServedRrset }, sections: Sections, options: LookupOptions): void {
  sections.authority.push(...records(cut.cut, cut.ns, options));
  const glue = addresses(zone, cut.ns.records.map((r) => r.target), options);
  sections.additional.push(...glue);
  sections.requiredAdditional += glue.length;
}

/** The node that answers for `name`: itself, or the wildcard that covers it (RFC 4592 §3.3.1). */
function answeringNode(zone: ZoneView, name: string): { node: ZoneNode | undefined; exists: boolean } {
  const own = zone.node(name);
  if (own !== undefined) return { node: own, exists: true };
  if (zone.exists(name)) return { node: undefined, exists: true };
  // The closest encloser: the longest existing ancestor; an empty non-terminal blocks wildcards above it.
  let encloser = parentOf(name);
  while (encloser !== undefined && encloser !== zone.name && !zone.exists(encloser)) encloser = parentOf(encloser);
  const wildcard = zone.node(`*.${encloser ?? zone.name}`);
  return { node: wildcard, exists: wildcard !== undefined };
}

export function lookup(zones: ServedZones, first: ZoneView, qname: string, qtype: number, options: LookupOptions): Sections {
  const sections: Sections = { rcode: 0, authoritative: true, answer: [], authority: [], additional: [], requiredAdditional: 0 };
  const seen = new Set<string>();
  let zone = first;
  let name = qname;
  for (let step = 0; step < maxChain; step++) {
    seen.add(name);
    const cut = delegation(zone, name, qtype);
    if (cut !== undefined) {
      // A referral for the question itself is not authoritative; after a CNAME it rides along.
      if (step === 0) sections.authoritative = false;
      referral(zone, cut, sections, options);
      return sections;
    }
    const { node, exists } = answeringNode(zone, name);
    if (!exists) {
      sections.rcode = 3;
      sections.authority.push(soaRecord(zone));
      return sections;
    }
    const wanted = node?.get(qtype);
    if (qtype === type.any && node !== undefined && node.size > 0) {
      const all = [...node.values()].sort((a, b) => a.type - b.type);
      for (const rrset of options.udp ? all.slice(0, 1) : all) sections.answer.push(...records(name, rrset, options));
      return sections;
    }
    const chosen = wanted === undefined ? [] : records(name, wanted, options);
    if (wanted !== undefined && chosen.length === 0) {
      // Pickers left nothing: a NODATA cached no longer than the RRset itself would have been.
      sections.authority.push({ ...soaRecord(zone), ttl: Math.min(zone.head.negativeTtl, wanted.ttl) });
      return sections;
    }
    if (wanted !== undefined) {
      sections.answer.push(...chosen);
      if (qtype === type.mx || qtype === type.srv || qtype === type.ns) {
        sections.additional.push(...addresses(zone, options.select(wanted).map((r) => r.target), options));
      }
      return sections;
    }
    const cname = node?.get(type.cname);
    if (cname === undefined || qtype === type.cname) {
      sections.authority.push(soaRecord(zone));
      return sections;
    }
    sections.answer.push(...records(name, cname, options));
    const target = cname.records[0]?.target;
    const next = target === undefined ? undefined : zones.find(target);
    // The chain ends at a name we do not host, or at a loop: the resolver takes it from there.
    if (target === undefined || next === undefined || seen.has(target)) return sections;
    zone = next;
    name = target;
  }
  return sections;
}
