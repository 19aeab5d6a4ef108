import type { RecordType } from './record-type.ts';
import { serviceBindingType } from './service-binding.ts';

export const svcb: RecordType = serviceBindingType('SVCB', 64);
