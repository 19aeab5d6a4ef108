// A resource's certificate as a TLS context, built once when its policy is compiled.
import { createSecureContext, type SecureContext } from 'node:tls';
import type { ResourcePolicy } from '../policy.ts';

export function secureContextOf(policy: ResourcePolicy): SecureContext | undefined {
  if (policy.tls === undefined) return undefined;
  return createSecureContext({ cert: policy.tls.chain, key: policy.tls.key, minVersion: 'TLSv1.2' });
}
