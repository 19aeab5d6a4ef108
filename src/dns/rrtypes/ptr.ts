import { hostTargetType } from './host-target.ts';
import type { RecordType } from './record-type.ts';

export const ptr: RecordType = hostTargetType('PTR', 12);
