// What the resolver tests (API and console) need to stand up a parent zone in Knot above the
// service's zones: the DNSSEC key as the API returns it, the DS the parent should publish for it
// (computed here, independently of the service), and a plain SOA for the parent's zone file.
import { createHash } from 'node:crypto';

/** A zone's key as `GET /dns/v2/zones/{name}/dnssec` answers it. */
export interface DnssecKey {
  flags: number;
  algorithm: string;
  public_key: string;
  key_tag: number;
  digest: string;
}

/** The DS digest of `key` for `zone` (RFC 4034 §5.1.4 over the zone's wire name), upper-case hex. */
export function dsDigest(zone: string, key: DnssecKey, digestType: 2 | 4 = 2): string {
  const owner = Buffer.concat([...zone.split('.').map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)])), Buffer.from([0])]);
  const rdata = Buffer.concat([Buffer.from([key.flags >> 8, key.flags & 0xff, 3, Number(key.algorithm)]), Buffer.from(key.public_key, 'base64')]);
  return createHash(digestType === 2 ? 'sha256' : 'sha384').update(owner).update(rdata).digest('hex').toUpperCase();
}

/** The DS record's RDATA in presentation form: key tag, algorithm, digest type, digest. */
export function dsRecord(zone: string, key: DnssecKey, digestType: 2 | 4 = 2): string {
  return `${String(key.key_tag)} ${key.algorithm} ${String(digestType)} ${dsDigest(zone, key, digestType)}`;
}

export const parentSoa = (zone: string): string => `${zone}. 300 IN SOA ns.${zone}. hostmaster.${zone}. 1 3600 600 86400 300`;
