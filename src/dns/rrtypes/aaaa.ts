import { ipv6, ipv6Octets } from './addresses.ts';
import { plainField } from './fields.ts';
import { fixedFieldsType } from './fixed-fields.ts';
import type { RecordType } from './record-type.ts';

export const aaaa: RecordType = fixedFieldsType('AAAA', 28, [plainField('address', ipv6, (value) => ipv6Octets(String(value)))]);
