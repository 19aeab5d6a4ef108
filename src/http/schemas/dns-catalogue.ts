// Answers of the provider's catalogue endpoints under /dns/v2: picker types and presets, locations.
import { Type } from 'typebox';

export const LabelName = Type.Object({
  label: Type.String({ description: 'for people' }),
  name: Type.String({ description: 'the picker `type` an RRset names' }),
});

export const PickerList = Type.Array(LabelName, { description: 'every picker type RRsets may use' });

export const PickerPresets = Type.Record(Type.String(), Type.Array(LabelName), { description: 'preset chains by name, each a list of pickers in the order they run' });

export const Locations = Type.Record(
  Type.String(),
  Type.Object({ names: Type.Record(Type.String(), Type.String(), { description: 'the name by language code (en, and for countries their own language\'s)' }) }),
  { description: 'by the code record meta uses' },
);

export const AllLocations = Type.Object({ continents: Locations, countries: Locations, regions: Locations });

export const MetricsQuery = Type.Object({
  zone_names: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 1000, description: 'only these of the account\'s zones; repeated or comma-separated' })),
  client_ids: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 1000, description: 'accepted and ignored, as the provider ignores it for clients: every answer is the caller\'s account\'s' })),
});

export const MappingEntry = Type.Object({
  tags: Type.Array(Type.String()),
  cidr4: Type.Array(Type.String({ description: 'an IPv4 address or CIDR' })),
  cidr6: Type.Array(Type.String({ description: 'an IPv6 address or CIDR' })),
});

export const NetworkMapping = Type.Object({ id: Type.Integer(), name: Type.String(), mapping: Type.Array(MappingEntry) });
/** A mapping read alone: its fields, and the same under `network_mapping` (the Go SDK's shape). */
export const NetworkMappingRead = Type.Object({ ...NetworkMapping.properties, network_mapping: NetworkMapping });

/** Validated in dns/network-mapping-input.ts, so that every problem is named in `fields` at once. */
export const NetworkMappingBody = Type.Object(
  {
    name: Type.Optional(Type.Unknown({ description: '1-64 letters, digits, `_`, `.` or `-`; required on create; on PUT absent or unchanged' })),
    mapping: Type.Optional(Type.Unknown({ description: '[{tags, cidr4, cidr6}], at most 100 entries and 5000 networks' })),
  },
  { additionalProperties: true },
);
