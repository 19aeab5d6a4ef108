// Record types whose RDATA is a fixed list of fields, one content element and one zone-file token each.
import type { Field } from './fields.ts';
import { ContentError, type RecordType } from './record-type.ts';

export function fixedFieldsType(type: string, code: number, fields: readonly Field[]): RecordType {
  const names = fields.map((field) => field.name).join(', ');
  // One field (A, AAAA, the name types): its octets are the RDATA as they are, not copied again.
  const only = fields.length === 1 ? fields[0] : undefined;
  const expectCount = (count: number, what: string) => {
    if (count !== fields.length) {
      throw new ContentError(`${type} ${what} must be [${names}], got ${count} element${count === 1 ? '' : 's'}`);
    }
  };
  return {
    type,
    code,
    parse(content) {
      expectCount(content.length, 'content');
      return fields.map((field, index) => field.parse(content[index], `${type} ${field.name}`));
    },
    toText(content) {
      return fields.map((field, index) => field.toText(content[index])).join(' ');
    },
    fromText(tokens, origin) {
      expectCount(tokens.length, 'zone-file data');
      return fields.map((field, index) => field.fromText(tokens[index]?.value ?? '', origin));
    },
    toWire(content) {
      return only !== undefined ? only.toWire(content[0]) : Buffer.concat(fields.map((field, index) => field.toWire(content[index])));
    },
  };
}
