// The authoritative DNS server role: loads every enabled zone, follows the change feed, and answers
// on UDP and TCP at the same address.
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { ListenAddress, UdpIo } from '../../config.ts';
import type { ChangeFeed } from '../../events/change-feed.ts';
import type { Store } from '../../store/database.ts';
import { sealer } from '../../crypto/sealed.ts';
import { openGeo } from '../../geo/geoip.ts';
import type { HealthReport } from '../health/checker.ts';
import { followStore, type Follower } from './follow-store.ts';
import { dnsMetrics } from './metrics.ts';
import { respond, type Responder } from './respond.ts';
import { ResponseCache } from './response-cache.ts';
import { ServedZones } from './served-zones.ts';
import { listenTcp, type TcpListener } from './tcp.ts';
import type { Handler } from './handler.ts';
import { listenUdp, type UdpListener } from './udp.ts';

export interface DnsServer {
  address: ListenAddress;
  /** How UDP datagrams are moved (udp.ts). */
  udpIo: UdpListener['io'];
  zones: number;
  loadMs: number;
  /** Applies a health check's verdict on one record (health/checker.ts). */
  setHealth(report: HealthReport): void;
  stop(): Promise<void>;
}

export interface DnsServerOptions {
  store: Store;
  listen: ListenAddress;
  logger: FastifyBaseLogger;
  /** The API of this process publishes its changes here; without one, the store is followed. */
  changes: ChangeFeed | undefined;
  databaseUrl: string | undefined;
  /** A custom GeoIP database (.mmdb); undefined: the one shipped with the service. */
  geoipDb: string | undefined;
  metrics: Registry;
  /** Other workers bind the same address (SO_REUSEPORT). */
  shared: boolean;
  /** The service's secret key: opens the zones' sealed DNSSEC keys. */
  secretKey: Uint8Array;
  udpIo: UdpIo;
  /** Called after each zone change this server applied (from the API of this process or the store). */
  onZoneChange?: () => void;
}

/**
 * UDP and TCP on one address. Port 0 asks for a free port: TCP takes the one UDP got, and when
 * another program holds that TCP port (UDP and TCP ports are separate spaces), both try again.
 */
async function bindBoth(options: DnsServerOptions, handler: Handler, tcpHandler: Handler, onError: (e: unknown) => void) {
  for (let attempt = 1; ; attempt++) {
    const udp = await listenUdp(options.listen, handler, onError, options.shared, options.udpIo);
    const port = udp.port;
    try {
      return { udp, tcp: await listenTcp({ host: options.listen.host, port }, tcpHandler, onError, options.shared), port };
    } catch (e) {
      await udp.close();
      const taken = (e as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (!taken || options.listen.port !== 0 || attempt >= 10) throw e;
    }
  }
}

export async function startDnsServer(options: DnsServerOptions): Promise<DnsServer> {
  const zones = new ServedZones(options.store.db, sealer(options.secretKey), options.onZoneChange);
  const started = Date.now();
  await zones.loadAll();
  let follower: Follower | undefined;
  const unsubscribe = options.changes
    ? options.changes.subscribe((change) => zones.apply(change))
    : () => undefined;
  if (options.changes === undefined) follower = await followStore(options.store, options.databaseUrl, zones, options.logger);
  const onError = (e: unknown) => options.logger.error({ err: e }, 'DNS query failed');
  const metrics = dnsMetrics(options.metrics);
  const cache = new ResponseCache();
  const responder: Responder = { zones, cache, geo: await openGeo({ mmdbPath: options.geoipDb }), metrics };
  const serve = (transport: 'udp' | 'tcp') => (message: Buffer, source: string) => {
    const started = metrics.start(transport);
    const reply = respond(responder, message, { udp: transport === 'udp', source });
    // A query the kept replies missed, answered from the cache, is answered from them next time.
    cache.learn(reply);
    metrics.answered(transport, reply, started);
    return reply;
  };
  const handler = serve('udp');
  const tcpHandler = serve('tcp');

  let sockets: { udp: UdpListener; tcp: TcpListener; port: number };
  try {
    sockets = await bindBoth(options, handler, tcpHandler, onError);
  } catch (e) {
    unsubscribe();
    await follower?.stop();
    throw e;
  }
  const { udp, tcp, port } = sockets;
  options.logger.debug({ port, zones: zones.size, load_ms: Date.now() - started }, 'DNS worker serving');
  return {
    address: { host: options.listen.host, port },
    udpIo: udp.io,
    zones: zones.size,
    loadMs: Date.now() - started,
    setHealth: (report) => zones.setHealth(report),
    stop: async () => {
      unsubscribe();
      await follower?.stop();
      await udp.close();
      await tcp.close();
    },
  };
}
