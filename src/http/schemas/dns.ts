// Request schemas of the DNS area, for validation and the OpenAPI document. Bodies are checked in
// detail by the use cases (field-level errors for content, pickers and meta); these schemas set the
// outer shape.
import { Type } from 'typebox';
import { BoundedInteger, maxOffset, UncoercedString } from './common.ts';

const Meta = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.String()], {
  description: 'An object, or a string holding a JSON object; keys `webhook` (URL) and `webhook_method` are acted on',
});

export const ZoneBody = Type.Object({
  name: Type.Optional(UncoercedString('the zone name (required on create; ignored on update)')),
  contact: Type.Optional(UncoercedString('the SOA contact, an e-mail address or RNAME')),
  primary_server: Type.Optional(UncoercedString('the SOA MNAME, a host name')),
  enabled: Type.Optional(Type.Boolean()),
  serial: Type.Optional(Type.Integer({ minimum: 0, maximum: 4294967295 })),
  refresh: Type.Optional(Type.Integer()),
  retry: Type.Optional(Type.Integer()),
  expiry: Type.Optional(Type.Integer()),
  nx_ttl: Type.Optional(Type.Integer()),
  meta: Type.Optional(Meta),
});

const Picker = Type.Object({
  type: Type.String({ description: 'geodns, asn, country, continent, region, ip, default, geodistance, weighted_shuffle, first_n, healthcheck (or is_healthy: drops records whose meta.failover check fails)' }),
  limit: Type.Optional(Type.Integer()),
  strict: Type.Optional(Type.Boolean()),
});

export const RrsetBody = Type.Object({
  ttl: Type.Optional(Type.Integer()),
  meta: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Kept verbatim. failover: {protocol HTTP|TCP|UDP|ICMP, port, frequency 10-3600, timeout 1-10, method, url, host, tls, http_status_code, regexp (linear-time)}: the health check of the A/AAAA records (docs/dns-server.md)',
    }),
  ),
  pickers: Type.Optional(Type.Array(Picker)),
  filters: Type.Optional(Type.Array(Picker, { description: 'Alias of pickers; pickers wins' })),
  resource_records: Type.Array(
    Type.Object({
      content: Type.Array(Type.Unknown(), { description: 'The record\'s RDATA fields in order (compat.md)' }),
      enabled: Type.Optional(Type.Boolean()),
      meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  ),
});

/**
 * The RRset result of the contract (OutputRRSet): every field always present. For documentation
 * only: the routes send these bodies with JSON.stringify (free-form meta, nanosecond integers).
 */
export const RrsetResult = Type.Object(
  {
    name: Type.String({ description: 'Fully qualified, lower case, no trailing dot' }),
    type: Type.String(),
    ttl: Type.Integer(),
    updated_at: Type.Union([Type.String({ description: 'seed profile: ISO 8601 UTC' }), Type.Integer({ description: 'gcore profile: nanoseconds' })]),
    filter_set_id: Type.Integer({ description: 'Always 0: filter sets are not offered (their ids would start at 1)' }),
    meta: Type.Record(Type.String(), Type.Unknown()),
    pickers: Type.Union([Type.Array(Picker), Type.Null()], { description: 'seed: [] when static; gcore: null when static' }),
    filters: Type.Optional(Type.Union([Type.Array(Picker), Type.Null()], { description: 'gcore profile only: the same as pickers' })),
    resource_records: Type.Array(
      Type.Object({
        id: Type.Integer(),
        content: Type.Array(Type.Unknown()),
        enabled: Type.Boolean(),
        meta: Type.Record(Type.String(), Type.Unknown()),
      }),
    ),
    warning: Type.String({ description: 'The messages of warnings joined by "; "; "" when there are none' }),
    warnings: Type.Array(Type.Object({ key: Type.String(), message: Type.String() }), {
      description: 'What a write accepted with a caveat (merged duplicates, filters ignored); [] on reads and clean writes',
    }),
  },
  { $id: 'RrsetResult' },
);

const direction = Type.Union([Type.Literal('asc'), Type.Literal('desc')]);
export const paging = {
  offset: Type.Optional(BoundedInteger({ minimum: 0, maximum: maxOffset, description: 'default 0' })),
  limit: Type.Optional(BoundedInteger({ minimum: 1, maximum: 100000, description: 'absent: everything' })),
  order_direction: Type.Optional(direction),
};

export const ZoneListQuery = Type.Object({
  ...paging,
  order_by: Type.Optional(
    Type.Union([Type.Literal('name'), Type.Literal('id'), Type.Literal('serial'), Type.Literal('status'), Type.Literal('created_at'), Type.Literal('updated_at')]),
  ),
  name: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { description: 'repeated or comma-separated' })),
  exact_match: Type.Optional(Type.Boolean()),
  enabled: Type.Optional(Type.Boolean()),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('disabled')])),
});

export const RrsetListQuery = Type.Object({
  ...paging,
  order_by: Type.Optional(Type.Union([Type.Literal('name'), Type.Literal('type'), Type.Literal('ttl'), Type.Literal('updated_at')])),
  type: Type.Optional(Type.Array(Type.String({ maxLength: 16 }), { description: 'repeated or comma-separated' })),
  all: Type.Optional(Type.Boolean({ description: 'accepted for compatibility; lists are complete unless limit is set' })),
});

export const FailoverLogQuery = Type.Object({
  offset: Type.Optional(BoundedInteger({ minimum: 0, maximum: maxOffset, description: 'Entries to skip, newest first; default 0' })),
  limit: Type.Optional(BoundedInteger({ minimum: 1, maximum: 1000, description: 'Most entries to answer; default 100 (all that are kept)' })),
});

export const FailoverLogResult = Type.Object({
  log: Type.Array(
    Type.Object({
      action: Type.Union([Type.Literal('up'), Type.Literal('down')], { description: 'The state the record changed to' }),
      address: Type.String({ description: 'The record\'s address' }),
      time: Type.Integer({ description: 'Unix seconds' }),
    }),
    { description: 'Newest first' },
  ),
  total_amount: Type.Integer({ description: 'Entries kept for the RRset (the newest 100)' }),
});

export const ZoneParams = Type.Object({ name: Type.String({ maxLength: 255 }) });
export const RrsetParams = Type.Object({
  zoneName: Type.String({ maxLength: 255 }),
  rrsetName: Type.String({ maxLength: 255 }),
  rrsetType: Type.String({ maxLength: 16 }),
});

/** `a,b` and repeated keys both give ['a', 'b']. */
export function listParam(values: string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}
