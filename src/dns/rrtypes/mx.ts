import { integerField } from './fields.ts';
import { fixedFieldsType } from './fixed-fields.ts';
import type { RecordType } from './record-type.ts';
import { targetField } from './target.ts';

// An exchange of "." is a null MX (RFC 7505): the domain accepts no mail.
export const mx: RecordType = fixedFieldsType('MX', 15, [integerField('preference', 0, 65535), targetField('exchange', { root: true })]);
