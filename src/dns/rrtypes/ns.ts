import { hostTargetType } from './host-target.ts';
import type { RecordType } from './record-type.ts';

export const ns: RecordType = hostTargetType('NS', 2);
