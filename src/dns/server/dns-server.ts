// The authoritative DNS server role: loads every enabled zone, applies the changes it is handed
// and keeps up with the store by itself (zone-sync.ts), and answers on UDP and TCP at the same address.
import type { FastifyBaseLogger } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { ListenAddress, UdpIo } from '../../config.ts';
import type { ZoneChange } from '../../events/change-feed.ts';
import type { Store } from '../../store/database.ts';
import { sealer } from '../../crypto/sealed.ts';
import { geoLookup, type GeoData } from '../../geo/geoip.ts';
import type { HealthReport } from '../health/checker.ts';
import { ApplyFaults, type ApplyFault } from './apply-faults.ts';
import { followStore } from './follow-store.ts';
import { dnsMetrics } from './metrics.ts';
import { QueryStats, startStatsWriter } from './query-stats.ts';
import { rateLimitedOpt, respond, type Responder } from './respond.ts';
import { ResponseCache } from './response-cache.ts';
import { ServedZones } from './served-zones.ts';
import { ZoneSync } from './zone-sync.ts';
import { listenTcp, type TcpEvents, type TcpHandler, type TcpListener } from './tcp.ts';
import type { TcpLimits } from './tcp-limits.ts';
import { ResponseRateLimit, truncated } from './rate-limit.ts';
import { TransferHandler } from './transfer-handler.ts';
import { parseTsigKey } from './tsig.ts';
import { parseNetwork } from '../../net/networks.ts';
import type { Handler, UdpListener } from './listener.ts';
import { listenUdp } from './udp.ts';
import type { SharedZone } from './load.ts';

export interface DnsServer {
  address: ListenAddress;
  /** How UDP datagrams are moved (udp.ts). */
  udpIo: UdpListener['io'];
  zones: number;
  loadMs: number;
  /** Applies a committed change (retrying): true once served, false when this server gave up for now. */
  apply(change: ZoneChange): Promise<boolean>;
  /** Whether this server answers for exactly this zone. */
  serves(zone: string): boolean;
  /** Applies a health check's verdict on one record (health/checker.ts). */
  setHealth(report: HealthReport): void;
  /** The records the health checks last reported down: what a DNS thread started again is told. */
  downReports(): HealthReport[];
  /** The zones loaded at start, for the other DNS threads (with `share`; once). */
  takeShared(): SharedZone[];
  /** The zones as this thread serves them now, for a thread started again to take (ServedZones.current()). */
  currentZones(): SharedZone[];
  /** One zone as this thread serves it at `version` or later, for a thread about to read it whole (ServedZones.imageOf()). */
  imageOf(zone: string, version: number): Promise<SharedZone | undefined>;
  stop(): Promise<void>;
}

export interface DnsServerOptions {
  store: Store;
  listen: ListenAddress;
  logger: FastifyBaseLogger;
  /** The API in this process hands this server each change as it commits. */
  fed: boolean;
  /** This DNS thread: 0 the main thread, 1 and up the workers. */
  thread: number;
  metrics: Registry;
  /** Other workers bind the same address (SO_REUSEPORT). */
  shared: boolean;
  settings: DnsSettings;
  /** The process's GeoIP data (loaded once, shared by every thread). */
  geo: GeoData;
  /** Zones another DNS thread of the process loaded (its takeShared()): taken, not read again. */
  loadedZones?: readonly SharedZone[];
  /** Keep what other threads need to take the zones this one loads at start (takeShared()). */
  shareZones?: boolean;
  /** Asks the main DNS thread for its image of a zone this one is about to read whole (its imageOf()). */
  askImage?: (zone: string, version: number) => Promise<SharedZone | undefined>;
  /** Called after each zone change this server applied (from the API of this process or the store). */
  onZoneChange?: (change: ZoneChange, served: boolean) => void;
  /** Called when this server brought a zone to the store's version by itself (zone-sync.ts). */
  onCaughtUp?: (change: ZoneChange, served: boolean) => void;
}

/** What every DNS thread serves with, the same in each: handed whole to the worker threads. */
export interface DnsSettings {
  databaseUrl: string | undefined;
  /** The service's secret key: opens the zones' sealed DNSSEC keys. */
  secretKey: Uint8Array;
  udpIo: UdpIo;
  /** Addresses and CIDRs that may transfer zones over TCP (transfer.ts). */
  transferAllow: readonly string[];
  /** TSIG keys (`name:algorithm:secret`): when any, a transfer must be signed with one (tsig.ts). */
  tsigKeys: readonly string[];
  /** This server's identifier for queries that ask (RFC 5001); undefined: none is sent. */
  nsid: string | undefined;
  /** DNS COOKIE secrets (cookies.ts), the one making cookies first; the same on every node. */
  cookieSecrets: readonly Uint8Array[];
  /** The catalog zone's name (EDGEPLANE_DNS_CATALOG, catalog.ts); undefined: none. */
  catalog: string | undefined;
  /** Response rate limiting over UDP (rate-limit.ts): answers a second, 0 for none, and the slip. */
  rrl: { perSecond: number; slip: number };
  /** Failures injected by the tests (apply-faults.ts); empty otherwise. */
  applyFaults: readonly ApplyFault[];
  /** Bounds on TCP connections, with the counters every thread shares (tcp-limits.ts). */
  tcp: TcpLimits;
  /** Query statistics (query-stats.ts): seconds between writes to the store, days kept (0: for ever). */
  stats: { flushSeconds: number; retentionDays: number };
}

/**
 * UDP and TCP on one address. Port 0 asks for a free port: TCP takes the one UDP got, and when
 * another program holds that TCP port (UDP and TCP ports are separate spaces), both try again.
 */
async function bindBoth(options: DnsServerOptions, handler: Handler, tcpHandler: TcpHandler, onError: (e: unknown) => void, tcpEvents: TcpEvents) {
  for (let attempt = 1; ; attempt++) {
    const udp = await listenUdp(options.listen, handler, onError, options.shared, options.settings.udpIo);
    const port = udp.port;
    try {
      const tcp = await listenTcp({ host: options.listen.host, port }, tcpHandler, onError, { shared: options.shared, limits: options.settings.tcp, events: tcpEvents });
      return { udp, tcp, port };
    } catch (e) {
      await udp.close();
      const taken = (e as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (!taken || options.listen.port !== 0 || attempt >= 10) throw e;
    }
  }
}

export async function startDnsServer(options: DnsServerOptions): Promise<DnsServer> {
  // Without the API here, PostgreSQL NOTIFY brings every node's changes the moment they commit.
  const databaseUrl = options.settings.databaseUrl;
  const listens = !options.fed && options.store.engine === 'postgres' && databaseUrl !== undefined;
  // Summed over the process's threads: "thread" counts a copy of a zone the process did not make.
  const zoneLoads = new Counter({
    name: 'edgeplane_dns_zone_loads_total',
    help: 'Zones a DNS thread loaded whole: read from the store, or taken from the image another DNS thread of the process built',
    labelNames: ['from'],
    registers: [options.metrics],
  });
  const zones = new ServedZones(options.store.db, sealer(options.settings.secretKey), {
    onApplied: options.onZoneChange,
    catalog: options.settings.catalog,
    shared: options.loadedZones,
    share: options.shareZones,
    ask: options.askImage,
    onLoaded: (from) => zoneLoads.inc({ from }),
  });
  const sync = new ZoneSync({
    db: options.store.db,
    zones,
    logger: options.logger,
    metrics: options.metrics,
    thread: options.thread,
    catalog: options.settings.catalog,
    faults: new ApplyFaults(options.settings.applyFaults, options.thread),
    onCaughtUp: options.onCaughtUp ?? (() => undefined),
    handed: options.fed || listens,
  });
  const started = Date.now();
  await sync.start();
  const follower = listens ? await followStore(databaseUrl, sync, options.logger) : undefined;
  const onError = (e: unknown) => options.logger.error({ err: e }, 'DNS query failed');
  const metrics = dnsMetrics(options.metrics);
  const cache = new ResponseCache();
  const nsid = options.settings.nsid === undefined ? undefined : Buffer.from(options.settings.nsid);
  const responder: Responder = { zones, cache, geo: geoLookup(options.geo), metrics, zone: 0, verified: false };
  const cookies = options.settings.cookieSecrets;
  const stats = new QueryStats();
  const serve = (transport: 'udp' | 'tcp') => (message: Buffer, source: string) => {
    const started = metrics.start(transport);
    const reply = respond(responder, message, { udp: transport === 'udp', source, nsid, cookies });
    // A query the kept replies missed, answered from the cache, is answered from them next time.
    cache.learn(reply);
    stats.count(responder.zone, metrics.answered(transport, reply, started));
    return reply;
  };
  const transfers = new TransferHandler({
    db: options.store.db,
    zones,
    allow: options.settings.transferAllow.map(parseNetwork),
    keys: options.settings.tsigKeys.map(parseTsigKey),
    logger: options.logger,
  });
  const answerQuery = serve('udp');
  // An IXFR over UDP from a secondary gets the current SOA (transfer-handler.ts); without secondaries
  // allowed, UDP queries take no detour through it.
  const answerUdp: Handler =
    options.settings.transferAllow.length === 0
      ? answerQuery
      : (message, source) => {
          const soa = transfers.udp(message, source);
          if (soa === undefined) return answerQuery(message, source);
          // `respond` did not see this query: no cookie of an earlier one may exempt it from the rate limit.
          responder.verified = false;
          return soa;
        };
  const { perSecond, slip } = options.settings.rrl;
  const limit = perSecond > 0 ? new ResponseRateLimit(perSecond, slip) : undefined;
  // Without a limit (the default) UDP queries take no detour through it.
  const handler: Handler =
    limit === undefined
      ? answerUdp
      : (message, source) => {
          const reply = answerUdp(message, source);
          // A valid server cookie proves the source address: no reflection to limit (RFC 7873 §5.2.4).
          if (reply === undefined || responder.verified) return reply;
          const verdict = limit.verdict(source, reply);
          if (verdict === 'sent') return reply;
          metrics.rateLimited(verdict);
          return verdict === 'slipped' ? truncated(reply, rateLimitedOpt(message)) : undefined;
        };
  const answerTcp = serve('tcp');
  // A zone transfer is several messages; everything else over TCP is one.
  const tcpHandler: TcpHandler = (message, source) => transfers.tcp(message, source) ?? answerTcp(message, source);

  let sockets: { udp: UdpListener; tcp: TcpListener; port: number };
  try {
    sockets = await bindBoth(options, handler, tcpHandler, onError, metrics.tcp);
  } catch (e) {
    await sync.stop();
    await follower?.stop();
    throw e;
  }
  const { udp, tcp, port } = sockets;
  // One thread of each process drops the buckets past the retention; every thread writes its counts.
  const statsWriter = startStatsWriter({ db: options.store.db, stats, logger: options.logger, ...options.settings.stats, prunes: options.thread === 0 });
  // `taken`: zones served from another thread's image (at start, or a replacement's), the rest read whole.
  if (options.thread > 0) options.logger.info({ thread: options.thread, port, zones: zones.size, taken: zones.taken, load_ms: Date.now() - started }, 'DNS worker serving');
  return {
    address: { host: options.listen.host, port },
    udpIo: udp.io,
    zones: zones.size,
    loadMs: Date.now() - started,
    apply: (change) => sync.apply(change),
    serves: (zone) => zones.get(zone) !== undefined,
    setHealth: (report) => zones.setHealth(report),
    downReports: () => zones.downReports(),
    takeShared: () => zones.takeShared(),
    currentZones: () => zones.current(),
    imageOf: (zone, version) => zones.imageOf(zone, version),
    stop: async () => {
      await sync.stop();
      await follower?.stop();
      await udp.close();
      await tcp.close();
      await statsWriter.stop();
    },
  };
}
