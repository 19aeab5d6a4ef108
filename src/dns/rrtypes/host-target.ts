// CNAME, NS and PTR: RDATA is one host name.
import { fixedFieldsType } from './fixed-fields.ts';
import type { RecordType } from './record-type.ts';
import { targetField } from './target.ts';

export function hostTargetType(type: string, code: number): RecordType {
  return fixedFieldsType(type, code, [targetField('target')]);
}
