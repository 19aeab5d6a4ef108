// When a managed certificate is (re)issued, and how long a resource waits after a failed order.
import { X509Certificate } from 'node:crypto';
import { storedChainCovers } from '../../certificate.ts';
import type { TlsPolicy } from '../policy.ts';

/** Names in one certificate at most: Let's Encrypt's limit. A resource may hold 101 (a name and 100 aliases). */
export const maxCertificateNames = 100;
const day = 86_400;

/** The names a resource's managed certificate is for: those it holds, its name first. */
export function wantedNames(hosts: readonly string[]): string[] {
  return hosts.slice(0, maxCertificateNames);
}

/**
 * Seconds before expiry a certificate is renewed, as Let's Encrypt advises: a third of its lifetime
 * (a 90-day certificate renews with 30 days left), half of it for certificates shorter than 10
 * days (its 6-day ones renew after 3), never more than 30 days.
 */
export function renewBeforeSeconds(leaf: X509Certificate): number {
  const lifetime = (leaf.validToDate.getTime() - leaf.validFromDate.getTime()) / 1000;
  return Math.min(30 * day, Math.floor(lifetime / (lifetime < 10 * day ? 2 : 3)));
}

/** When (UNIX seconds) a certificate is due for renewal; `renewBefore` overrides the window. */
export function renewalTime(tls: TlsPolicy, renewBefore?: number): number {
  return tls.expires - (renewBefore ?? renewBeforeSeconds(new X509Certificate(tls.chain)));
}

export type Need = 'first' | 'expiring' | 'names';

/**
 * Why the resource needs a new certificate now, or undefined: none yet; the one it has expires
 * within the renewal window (`renewBefore` overrides it); or it misses a name the resource holds.
 */
export function certificateNeed(tls: TlsPolicy | undefined, wanted: readonly string[], nowSeconds: number, renewBefore?: number): Need | undefined {
  if (tls === undefined) return 'first';
  if (renewalTime(tls, renewBefore) <= nowSeconds) return 'expiring';
  if (wanted.some((host) => !storedChainCovers(tls.chain, host))) return 'names';
  return undefined;
}

/** Doubling from `base` after each consecutive failure, at most `max`. */
export function backoffMs(failures: number, base: number, max: number): number {
  return Math.min(max, base * 2 ** Math.max(0, failures - 1));
}
