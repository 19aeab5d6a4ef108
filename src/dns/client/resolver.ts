// The resolver the API asks about the public DNS (EDGEPLANE_RESOLVER): one server the operator
// chose, never one a caller names, so no API call can aim queries at another address. Each query
// has a time limit, and the queries in flight at once are capped for the whole process, so callers
// cannot make the service hold sockets without bound or turn it into a flood towards the resolver.
import { randomInt } from 'node:crypto';
import type { ListenAddress } from '../../config.ts';
import { ApiError } from '../../errors.ts';
import { encodeQuery, MessageError, type Reply } from './message.ts';
import { rdataFields } from './rdata.ts';
import { exchange, ExchangeTimeout } from './transport.ts';

export const rcodes = { noError: 0, nxDomain: 3 } as const;
const rcodeNames = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

export interface ResolverOptions {
  timeoutMs: number;
  /** Queries in flight at once, over every API call. */
  maxInFlight: number;
}

export interface Resolver {
  /**
   * The reply to `name` (text form) and `type`, NOERROR or NXDOMAIN. Throws ApiError: 504 when the
   * resolver does not answer in time, 502 when it fails (SERVFAIL, REFUSED, an unreadable reply),
   * 429 when too many queries are in flight.
   */
  query(name: string, type: number): Promise<Reply>;
}

/** Queries in flight at once for the whole API process: each holds a socket for up to the timeout. */
export const resolverMaxInFlight = 64;

const busy = () => new ApiError(429, 'too_many_requests', 'too many DNS lookups in progress, retry later', { headers: { 'retry-after': '1' } });

export function stubResolver(server: ListenAddress, options: ResolverOptions): Resolver {
  let inFlight = 0;
  return {
    async query(name, type) {
      if (inFlight >= options.maxInFlight) throw busy();
      inFlight++;
      try {
        const reply = await exchange(server, encodeQuery(randomInt(0x10000), name, type), name, type, options.timeoutMs);
        // Every record's RDATA is read once here, so a malformed one is this reply's failure
        // rather than a surprise wherever its fields are used.
        for (const record of [...reply.answers, ...reply.authority, ...reply.additional]) rdataFields(reply, record);
        if (reply.rcode !== rcodes.noError && reply.rcode !== rcodes.nxDomain) {
          throw new ApiError(502, 'resolver_failed', `the resolver answered ${rcodeNames[reply.rcode] ?? `RCODE ${String(reply.rcode)}`} for ${name}.`);
        }
        return reply;
      } catch (e) {
        if (e instanceof ApiError) throw e;
        if (e instanceof ExchangeTimeout) {
          throw new ApiError(504, 'resolver_timeout', `the resolver did not answer about ${name}. within ${String(options.timeoutMs)} ms`);
        }
        if (e instanceof MessageError) throw new ApiError(502, 'resolver_failed', `the resolver's reply about ${name}. is malformed: ${e.message}`);
        // A socket error (unreachable, refused): the resolver's address stays out of the message.
        throw new ApiError(502, 'resolver_failed', `the resolver could not be reached (${(e as NodeJS.ErrnoException).code ?? 'network error'})`);
      } finally {
        inFlight--;
      }
    },
  };
}

/** The configured resolver, or 503 when the operator set none. */
export function requireResolver(resolver: Resolver | undefined): Resolver {
  if (resolver === undefined) {
    throw new ApiError(503, 'resolver_unavailable', 'no DNS resolver is configured on this service (EDGEPLANE_RESOLVER)');
  }
  return resolver;
}
