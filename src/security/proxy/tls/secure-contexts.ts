// A resource's certificate as a TLS context, built once when its policy is compiled (the chain and
// the key are parsed then, not at each handshake), and the TLS settings the HTTPS listener and every
// context share. Which context a handshake gets is decided by SNI in https-listener.ts.
import { createSecureContext, type SecureContext, type SecureContextOptions } from 'node:tls';
import type { ResourcePolicy } from '../policy.ts';

/**
 * TLS 1.2 and 1.3 only. Over TLS 1.2, forward-secret AEAD suites only (Mozilla's "intermediate"
 * profile without DHE, which would need parameters of our own); TLS 1.3's three suites are all
 * AEAD. X25519 first for its speed, the post-quantum hybrid before it for clients that offer it
 * (Chrome and Firefox do), P-256 and P-384 for the rest.
 */
export const tlsSettings = {
  minVersion: 'TLSv1.2',
  ciphers: [
    'TLS_AES_128_GCM_SHA256',
    'TLS_AES_256_GCM_SHA384',
    'TLS_CHACHA20_POLY1305_SHA256',
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
  ].join(':'),
  ecdhCurve: 'X25519MLKEM768:X25519:P-256:P-384',
  honorCipherOrder: true,
} satisfies SecureContextOptions;

/** The context serving a resource's certificate (its whole chain: leaf, then intermediates); undefined without one. */
export function secureContextOf(policy: ResourcePolicy): SecureContext | undefined {
  if (policy.tls === undefined) return undefined;
  return createSecureContext({ ...tlsSettings, cert: policy.tls.chain, key: policy.tls.key });
}

/** An SNI name as host tables key names: lower case, without a trailing dot. */
export function serverNameKey(servername: string): string {
  const name = servername.toLowerCase();
  return name.endsWith('.') ? name.slice(0, -1) : name;
}
