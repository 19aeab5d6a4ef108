// The keep-alive connections to one origin: an undici Pool per scheme, made when first needed.
// Origins are chosen by tenants but connected to by the operator's machine, so unless the operator
// allows it, an origin is refused when the address actually connected to is not public (loopback,
// private, link-local, unspecified, multicast, ...): a host name is checked on what it resolves to
// at connect time, inside the connection's own lookup, so a DNS answer that changes after a check
// (rebinding) cannot reach the operator's network; an address needs no lookup and is checked once.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Pool } from 'undici';
import { nonPublic } from '../../../net/public-address.ts';
import type { OriginPolicy } from '../policy.ts';

export interface PoolOptions {
  /** Connect to loopback, private and other non-public addresses (EDGEPLANE_PROXY_ALLOW_PRIVATE_ORIGINS). */
  allowPrivateOrigins: boolean;
  /** Connections per origin and scheme at most; requests beyond wait for one. */
  connections: number;
  connectTimeoutMs: number;
  /** From the request sent to the answer's headers. */
  headersTimeoutMs: number;
  /** Between two chunks of the answer's body (not counted while the client is slow to read). */
  bodyTimeoutMs: number;
  /** How long an idle connection is kept; an origin's `Keep-Alive: timeout=` hint lowers it. */
  keepAliveTimeoutMs: number;
}

export const defaultPoolOptions: PoolOptions = {
  allowPrivateOrigins: false,
  connections: 256,
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 60_000,
  bodyTimeoutMs: 60_000,
  keepAliveTimeoutMs: 30_000,
};

/** An origin refused by the destination policy: the proxy treats it as a connection failure. */
export class PrivateOriginError extends Error {
  override name = 'PrivateOriginError';
  readonly code = 'EDGEPLANE_PRIVATE_ORIGIN';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** net.connect's lookup, keeping only public addresses (refusing when none is left). */
function publicLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { family: options.family ?? 0, hints: options.hints ?? 0, all: true }, (error, addresses) => {
    if (error !== null) {
      callback(error, '');
      return;
    }
    const allowed = addresses.filter(({ address }) => nonPublic(address) === undefined);
    const first = allowed[0];
    if (first === undefined) {
      const shown = addresses[0] === undefined ? 'no address' : `${addresses[0].address}, a ${nonPublic(addresses[0].address) ?? ''} address`;
      callback(new PrivateOriginError(`origin ${hostname} resolves to ${shown}: only public addresses are allowed`), '');
      return;
    }
    if (options.all === true) callback(null, allowed);
    else callback(null, first.address, first.family);
  });
}

export class OriginPools {
  readonly #url: { http: string; https: string };
  /** For HTTPS: the origin's name, or for an address the resource's name (the site the origin serves). */
  readonly servername: string | undefined;
  /** Why every connection to this origin is refused (a non-public address), or undefined. */
  readonly refusal: PrivateOriginError | undefined;
  readonly #options: PoolOptions;
  #http: Pool | undefined;
  #https: Pool | undefined;

  constructor(origin: OriginPolicy, siteName: string | undefined, options: PoolOptions) {
    const literal = isIP(origin.host);
    const host = literal === 6 ? `[${origin.host}]` : origin.host;
    const port = (fallback: number) => String(origin.port ?? fallback);
    this.#url = { http: `http://${host}:${port(80)}`, https: `https://${host}:${port(443)}` };
    this.servername = literal === 0 ? origin.host : siteName;
    const kind = literal === 0 || options.allowPrivateOrigins ? undefined : nonPublic(origin.host);
    this.refusal = kind === undefined ? undefined : new PrivateOriginError(`origin ${origin.host} is a ${kind} address: only public addresses are allowed`);
    this.#options = options;
  }

  /** The pool for one scheme towards this origin. */
  pool(https: boolean): Pool {
    if (https) return (this.#https ??= this.#create(this.#url.https));
    return (this.#http ??= this.#create(this.#url.http));
  }

  #create(url: string): Pool {
    const options = this.#options;
    return new Pool(url, {
      connections: options.connections,
      // HTTP/1.1 only: one origin connection per request in flight, like nginx's upstream keepalive.
      allowH2: false,
      connectTimeout: options.connectTimeoutMs,
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
      keepAliveTimeout: options.keepAliveTimeoutMs,
      // Left on (the default): a body longer or shorter than its Content-Length is refused, not smuggled.
      strictContentLength: true,
      connect: {
        // Origin certificates are not verified, as at the provider: origins commonly serve self-signed ones.
        rejectUnauthorized: false,
        ...(options.allowPrivateOrigins ? {} : { lookup: publicLookup }),
      },
    });
  }

  /** Closes the pools once their requests in flight are answered. */
  async close(): Promise<void> {
    await Promise.all([this.#http?.close(), this.#https?.close()]);
  }
}
