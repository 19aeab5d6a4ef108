// CAA (RFC 8659): which certificate authorities may issue for the domain.
import { describe, integerField, text, type Field } from './fields.ts';
import { fixedFieldsType } from './fixed-fields.ts';
import { characterString } from './octets.ts';
import { quoteText, textFromPresentation } from './presentation-text.ts';
import { ContentError, type RecordType } from './record-type.ts';

const tag: Field = {
  name: 'tag',
  parse(value, label) {
    if (typeof value !== 'string' || !/^[a-z0-9]{1,15}$/i.test(value)) {
      throw new ContentError(`${label} must be 1-15 ASCII letters or digits, got ${describe(value)}`);
    }
    return value.toLowerCase();
  },
  toText: String,
  fromText: (value) => value,
  toWire: (value) => characterString(Buffer.from(String(value), 'ascii')),
};

// RDATA is the flags octet, the tag length octet, the tag and the value: leave room for the longest tag.
const maxValueOctets = 65535 - 2 - 15;

const value: Field = {
  name: 'value',
  parse(input, label) {
    const checked = text(input, label);
    if (Buffer.byteLength(checked, 'utf8') > maxValueOctets) {
      throw new ContentError(`${label} is longer than ${maxValueOctets} octets in UTF-8`);
    }
    return checked;
  },
  toText: (input) => quoteText(String(input)),
  fromText: textFromPresentation,
  // The value runs to the end of the RDATA, so it has no length of its own.
  toWire: (input) => Buffer.from(String(input), 'utf8'),
};

export const caa: RecordType = fixedFieldsType('CAA', 257, [integerField('flags', 0, 255), tag, value]);
