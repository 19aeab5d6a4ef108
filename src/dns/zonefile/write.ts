// Zone export: writes a zone as a BIND master file (RFC 1035 §5) that parseZoneFile and the usual
// tools (named-checkzone, kzonecheck) read back: SOA first, then the apex NS, then the other RRsets
// in DNS name order, one line per record with the owner relative to $ORIGIN.
import { relativeName } from '../names.ts';

export interface ZoneForExport {
  /** Zone name: lower case, no trailing dot. */
  name: string;
  /** Default TTL, written as $TTL. */
  ttl: number;
  soa: {
    primary_server: string;
    contact: string;
    serial: number;
    refresh: number;
    retry: number;
    expiry: number;
    nx_ttl: number;
    ttl: number;
  };
  rrsets: {
    name: string;
    type: string;
    ttl: number;
    /** Presentation RDATA of each record, already formatted. */
    rdata: string[];
  }[];
}

type ExportRrset = ZoneForExport['rrsets'][number];

function absolute(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}

/** DNS order (RFC 4034 §6.1) for our lower-case LDH names: compare labels from the right. */
function compareNames(a: string, b: string): number {
  const left = a.split('.').reverse();
  const right = b.split('.').reverse();
  for (const [index, x] of left.entries()) {
    const y = right[index];
    if (y === undefined) return 1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return left.length - right.length;
}

export function writeZoneFile(zone: ZoneForExport): string {
  const { soa } = zone;
  const isApexNs = (rrset: ExportRrset): boolean => rrset.name === zone.name && rrset.type === 'NS';
  // The SOA is written from `soa`; an SOA among the RRsets would be a second one.
  const others = zone.rrsets
    .filter((rrset) => rrset.type !== 'SOA' && !isApexNs(rrset))
    .sort((a, b) => compareNames(a.name, b.name) || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  const lines = [
    `; Zone ${zone.name}, exported by edgeplane`,
    `$ORIGIN ${absolute(zone.name)}`,
    `$TTL ${zone.ttl}`,
    `@\t${soa.ttl}\tIN\tSOA\t${absolute(soa.primary_server)} ${absolute(soa.contact)} ${soa.serial} ${soa.refresh} ${soa.retry} ${soa.expiry} ${soa.nx_ttl}`,
  ];
  for (const rrset of [...zone.rrsets.filter(isApexNs), ...others]) {
    const owner = relativeName(rrset.name, zone.name);
    for (const rdata of rrset.rdata) lines.push(`${owner}\t${rrset.ttl}\tIN\t${rrset.type}\t${rdata}`);
  }
  return `${lines.join('\n')}\n`;
}
