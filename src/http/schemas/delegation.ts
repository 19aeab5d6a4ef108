// Schemas of the endpoints answered through the operator's resolver: a zone's DS at its parent, a
// name's delegation status and the lookup (dns/delegation/).
import { Type } from 'typebox';

const Ds = {
  key_tag: Type.Integer(),
  algorithm: Type.Integer({ description: 'DNSSEC algorithm number (13: ECDSA P-256 with SHA-256)' }),
  digest_type: Type.Integer({ description: '1: SHA-1, 2: SHA-256, 4: SHA-384' }),
  digest: Type.String({ description: 'upper-case hex' }),
  ds: Type.String({ description: 'the DS record in zone-file form' }),
};

export const ParentDsResult = Type.Object({
  name: Type.String(),
  status: Type.Union(['match', 'mismatch', 'missing', 'unexpected', 'insecure', 'not_delegated'].map((s) => Type.Literal(s)), {
    description: 'match: a parent DS is our key\'s; mismatch: DS records, none ours; missing: DNSSEC on, no DS; unexpected: DNSSEC off, a DS; insecure: DNSSEC off, no DS; not_delegated: the parent answers NXDOMAIN',
  }),
  summary: Type.String({ description: 'what the status means for the operator, in a sentence' }),
  dnssec_enabled: Type.Boolean(),
  expected: Type.Union([Type.Object(Ds), Type.Null()], { description: 'the DS of the zone\'s key (SHA-256) to give the registrar; null while DNSSEC is off' }),
  parent: Type.Array(Type.Object({ ...Ds, ttl: Type.Integer(), matches: Type.Boolean({ description: 'this DS is the zone\'s key, in its digest type' }) }), {
    description: 'the DS records the resolver reports at the zone\'s name (32 at most)',
  }),
});

export const DelegationStatusResult = Type.Object({
  authoritative_name_servers: Type.Array(
    Type.Object({ name: Type.String(), ipv4Addresses: Type.Array(Type.String()), ipv6Addresses: Type.Array(Type.String()) }),
    { description: 'the NS the resolver reports for the name (the parent\'s referral, or the zone\'s answer), 13 at most, with their addresses' },
  ),
  gcore_authorized_count: Type.Integer({ description: 'of those, this service\'s: EDGEPLANE_NAMESERVERS or the zone\'s apex NS' }),
  non_gcore_authorized_count: Type.Integer({ description: 'of those, the others' }),
  is_whitelabel_delegation: Type.Boolean({ description: 'delegated here only under the zone\'s own apex NS names, none of EDGEPLANE_NAMESERVERS' }),
  zone_exists: Type.Boolean({ description: 'the caller\'s account holds the zone' }),
  status: Type.Union(['ok', 'partial', 'wrong', 'not_delegated'].map((s) => Type.Literal(s)), {
    description: 'ok: every NS is ours; partial: some; wrong: none; not_delegated: no NS (NXDOMAIN or none)',
  }),
  expected_name_servers: Type.Array(Type.String(), { description: 'the NS names counted as ours' }),
});

export const LookupQuery = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, description: 'the domain name to look up' }),
  type: Type.Optional(Type.String({ maxLength: 16, description: 'A, AAAA, CAA, CNAME, DS, MX, NS, PTR, SOA, SRV or TXT; absent: A, AAAA, MX, NS and TXT' })),
  request_server: Type.Optional(Type.String({ maxLength: 64, description: 'the provider\'s resolver choice; refused here (400): the operator\'s resolver is always used' })),
});

export const LookupResult = Type.Array(
  Type.Object({
    name: Type.String({ description: 'owner, fully qualified with its trailing dot' }),
    type: Type.String(),
    ttl: Type.Integer({ description: 'the RRset\'s TTL as the resolver reports it' }),
    content: Type.Array(Type.String(), { description: 'one element per record: its RDATA in zone-file form' }),
  }),
  { description: 'the answer\'s RRsets (a CNAME chain included), 100 records at most' },
);
