// DS (RFC 4034 §5): the digest of a child zone's DNSKEY, published at the delegation point.
import { describe, integerField, type Field } from './fields.ts';
import { fixedFieldsType } from './fixed-fields.ts';
import { ContentError, type RecordType } from './record-type.ts';

// SHA-1, SHA-256, SHA-384 (RFC 3658, 4509, 6605).
const digestHexLength = new Map([
  [1, 40],
  [2, 64],
  [4, 96],
]);

const digest: Field = {
  name: 'digest',
  parse(value, label) {
    const hex = typeof value === 'string' ? value.replace(/\s+/g, '') : undefined;
    if (hex === undefined || !/^(?:[0-9a-f]{2})+$/i.test(hex)) {
      throw new ContentError(`${label} must be a non-empty string of hex octets, got ${describe(value)}`);
    }
    return hex.toUpperCase();
  },
  toText: String,
  fromText: (value) => value,
  toWire: (value) => Buffer.from(String(value), 'hex'),
};

const fields = fixedFieldsType('DS', 43, [
  integerField('key tag', 0, 65535),
  integerField('algorithm', 1, 255),
  integerField('digest type', 1, 255),
  digest,
]);

export const ds: RecordType = {
  ...fields,
  parse(content, zone) {
    const parsed = fields.parse(content, zone);
    const digestType = Number(parsed[2]);
    const hexLength = String(parsed[3]).length;
    const expected = digestHexLength.get(digestType);
    if (expected !== undefined && hexLength !== expected) {
      throw new ContentError(`DS digest must be ${expected} hex digits for digest type ${digestType}, got ${hexLength}`);
    }
    return parsed;
  },
  fromText(tokens, origin) {
    // Zone files may split a long digest into several words.
    const joined = { value: tokens.slice(3).map((token) => token.value).join(''), quoted: false };
    return fields.fromText(tokens.length > 4 ? [...tokens.slice(0, 3), joined] : tokens, origin);
  },
};
