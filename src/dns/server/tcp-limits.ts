// How many DNS-over-TCP connections the DNS role holds at once (RFC 7766 §6.2.2: a server must be
// able to defend itself against clients that open many): in total and per client (an IPv4 address,
// or an IPv6 /64), counted across every DNS thread of the process with the counters of
// net/connection-admission.ts, handed to every thread with the DNS settings.
import { openFileShare, sharedCaps, type SharedCaps } from '../../net/connection-admission.ts';

export interface TcpSettings {
  /** Connections open at once across every DNS thread of the process. */
  maxClients: number;
  /** Of those, from one client (an IPv4 address or an IPv6 /64). */
  maxPerClient: number;
  /** A connection is closed after this long without a query answered or a reply taken by the kernel. */
  idleTimeoutMs: number;
  /** Replies of one connection answered but not yet taken by the kernel, before its reading waits. */
  maxPipelined: number;
}

/** The settings and the counters every DNS thread shares. */
export type TcpLimits = TcpSettings & SharedCaps;

export function tcpLimits(settings: TcpSettings): TcpLimits {
  return { ...settings, ...sharedCaps(settings) };
}

/**
 * The default cap on connections: half the process's open-file limit, as Knot DNS's tcp-max-clients,
 * so that the API, the store and the proxy keep the other half; at most 10,000, which bounds the replies
 * waiting in memory for clients that do not read to some hundreds of MiB (tcp-connection.ts). 1,000
 * where the limit cannot be read.
 */
export function defaultMaxClients(): number {
  return openFileShare(0.5, 10_000);
}
