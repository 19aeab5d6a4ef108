import { hostTargetType } from './host-target.ts';
import type { RecordType } from './record-type.ts';

export const cname: RecordType = hostTargetType('CNAME', 5);
