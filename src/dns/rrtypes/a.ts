import { ipv4, ipv4Octets } from './addresses.ts';
import { plainField } from './fields.ts';
import { fixedFieldsType } from './fixed-fields.ts';
import type { RecordType } from './record-type.ts';

export const a: RecordType = fixedFieldsType('A', 1, [plainField('address', ipv4, (value) => ipv4Octets(String(value)))]);
