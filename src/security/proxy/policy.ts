// What one protected resource asks of the proxy, as every proxy thread receives it: plain data
// (structured-cloneable), read from the store by the role's main thread (policy-loader.ts) and
// compiled by each thread into its host table (host-table.ts). The private key travels opened, in
// memory only, between threads of one process; it is never written or logged.
import type { Settings } from '../resource-input.ts';

export type OriginMode = 'primary' | 'backup' | 'down';

export interface OriginPolicy {
  id: number;
  /** An IP address (IPv6 without brackets) or a host name, resolved at connect time. */
  host: string;
  /** Undefined: the scheme's port (80 or 443). */
  port: number | undefined;
  weight: number;
  mode: OriginMode;
}

export interface RatePolicy {
  /** GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS or `*`. */
  method: string;
  /** Starts with `/` (the API reads the provider's `helloworld` as `/helloworld`); `*` matches anything. */
  path: string;
  /** Requests a second per client (IPv6: per /64), with a burst of as many; 0: unlimited. */
  value: number;
  testCookie: boolean;
}

export interface TlsPolicy {
  /** `custom`: the customer's; `le`: issued by ACME for this resource. */
  kind: 'custom' | 'le';
  /** PEM, leaf first. */
  chain: string;
  /** PEM, opened from the store's sealed copy. */
  key: string;
  /** notAfter of the leaf, UNIX seconds. */
  expires: number;
}

/** An HTTP-01 answer the CA is about to fetch from one of the resource's names (tls/acme-manager.ts). */
export interface AcmeChallenge {
  token: string;
  keyAuthorization: string;
}

export interface ResourcePolicy {
  id: number;
  accountId: number;
  name: string;
  /** The names and aliases this resource holds and the proxy answers for: the name first, without released hosts. */
  hosts: string[];
  /** Enabled, with a host and an origin that is not `down`: otherwise the proxy refuses its hosts (proxy docs). */
  served: boolean;
  settings: Settings;
  origins: OriginPolicy[];
  rules: RatePolicy[];
  /** Addresses and CIDRs in canonical text. */
  whitelist: string[];
  blacklist: string[];
  /** Undefined: no certificate yet (HTTPS handshakes for its names fail; no redirect to HTTPS). */
  tls: TlsPolicy | undefined;
  /** Whether ACME should get (or renew) a certificate for it: ssl_type `le`. */
  wantsManagedCertificate: boolean;
  /** HTTP-01 answers pending for its names while an ACME order is validated; absent the rest of the time. */
  acmeChallenges?: AcmeChallenge[];
}
