import type { RecordType } from './record-type.ts';
import { serviceBindingType } from './service-binding.ts';

export const https: RecordType = serviceBindingType('HTTPS', 65);
