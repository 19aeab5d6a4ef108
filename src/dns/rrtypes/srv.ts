import { integerField } from './fields.ts';
import { fixedFieldsType } from './fixed-fields.ts';
import type { RecordType } from './record-type.ts';
import { targetField } from './target.ts';

// A target of "." means the service is decidedly not available (RFC 2782).
export const srv: RecordType = fixedFieldsType('SRV', 33, [
  integerField('priority', 0, 65535),
  integerField('weight', 0, 65535),
  integerField('port', 0, 65535),
  targetField('target', { root: true }),
]);
