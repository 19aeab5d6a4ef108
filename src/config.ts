// One typed configuration object, read from the environment and overridden by CLI flags.
// Every setting has an environment name (EDGEPLANE_API_LISTEN) and a flag (--api-listen);
// a bad value stops the process at start with a message naming the setting.
import fs from 'node:fs';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { minPasswordLength } from './accounts/passwords.ts';
import { canonicalName } from './dns/names.ts';
import { reservedNameProblem } from './dns/reserved-names.ts';
import { parseNetwork } from './net/networks.ts';
import { parseTsigKey } from './dns/server/tsig.ts';
import { applyFaultsEnv, parseApplyFaults, type ApplyFault } from './dns/server/apply-faults.ts';
import type { Heartbeat } from './thread-slot.ts';
import { defaultMaxClients } from './dns/server/tcp-limits.ts';
import { parseCookieSecrets } from './dns/server/cookies.ts';
import { openFileLimit, openFileShare } from './net/connection-admission.ts';

export type Compat = 'seed' | 'gcore';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface ListenAddress {
  host: string;
  port: number;
}

export type Role = 'api' | 'dns' | 'proxy';

/** How the DNS server reads and sends UDP: see src/dns/server/udp.ts. */
export type UdpIo = 'auto' | 'batched' | 'dgram';

export interface Config {
  /** What this process runs. */
  roles: Role[];
  apiListen: ListenAddress;
  dnsListen: ListenAddress;
  /** DNS worker threads sharing the DNS port. */
  dnsWorkers: number;
  /** The protection proxy's plain-HTTP and HTTPS addresses. */
  proxyHttpListen: ListenAddress;
  proxyHttpsListen: ListenAddress;
  /** Proxy threads sharing both ports. */
  proxyWorkers: number;
  /** Origins may be loopback, private or link-local addresses (tests, single-operator setups). */
  proxyAllowPrivateOrigins: boolean;
  /** Peers (load balancers) whose X-Forwarded-For is believed. */
  proxyTrusted: string[];
  /** Networks that pass every check of the resources with service_global_whitelist 1. */
  proxyGlobalWhitelist: string[];
  /** Path patterns (as rate rules') that bot protection lets through unchecked: APIs. */
  proxyBotExemptPaths: string[];
  /** How long a client that passed the bot challenge passes without another. */
  proxyBotClearanceSeconds: number;
  /** Listeners whose every connection starts with a PROXY protocol header (v1 or v2) from a load balancer. */
  proxyHttpProxyProtocol: boolean;
  proxyHttpsProxyProtocol: boolean;
  /** Client connections the proxy holds at once, over all its threads and both listeners. */
  proxyMaxConnections: number;
  /** Of those, from one client address (IPv6: one /64), counted after the PROXY protocol. */
  proxyMaxConnectionsPerClient: number;
  /** A request's line and headers, a TLS handshake and a PROXY protocol header must arrive within this. */
  proxyHeaderTimeoutMs: number;
  /** A connection without a request in progress is closed after this. */
  proxyIdleTimeoutMs: number;
  /** A request body may pause this long, and must average proxyBodyMinRate after it. */
  proxyBodyTimeoutMs: number;
  proxyBodyMinRate: number;
  /** Bytes of a request line and headers (431 over it). */
  proxyMaxHeaderSize: number;
  /** Bytes of a request body (413 over it); 0: no limit. */
  proxyMaxBodySize: number;
  /** One JSON line per request on standard output. */
  proxyAccessLog: boolean;
  /** Passive health of origins, as nginx's max_fails and fail_timeout. */
  proxyOriginMaxFails: number;
  proxyOriginFailTimeoutSeconds: number;
  /** Connecting to an origin; waiting for its answer's headers, and between two chunks of its body. */
  proxyOriginConnectTimeoutSeconds: number;
  proxyOriginReadTimeoutSeconds: number;
  /** Automatic mitigation when a resource is under attack (docs/proxy.md). */
  proxyAttackMinRate: number;
  proxyAttackRateFactor: number;
  proxyAttackErrorPercent: number;
  proxyAttackHoldSeconds: number;
  proxyAttackShedPercent: number;
  /** Under attack: every client's ceiling on one resource (0: none), and the share of its rate rules' values that still passes. */
  proxyAttackClientRate: number;
  /** Under attack: how long a shed request waits for its 429 (0: answered at once). */
  proxyAttackShedDelayMs: number;
  proxyAttackClientBurst: number;
  proxyAttackRulePercent: number;
  /** A redis:// URL: rate-limit counters shared by every proxy node; undefined: each node counts alone. */
  redisUrl: string | undefined;
  /** The OWASP Core Rule Set's rules directory, read by the proxy for resources with is_waf_enabled. */
  wafCrsDir: string;
  /** block: over the anomaly threshold answers 403; log: forwards and logs. */
  wafMode: 'block' | 'log';
  /** CRS's paranoia level (1-4) and inbound anomaly score threshold. */
  wafParanoia: number;
  wafAnomalyThreshold: number;
  /** Bytes of a request body the WAF inspects (held before forwarding). */
  wafBodyLimit: number;
  /** Milliseconds of inspection one request may cost; past it the request is refused. */
  wafBudgetMs: number;
  /** Managed certificates (ssl_type "le") through ACME. */
  acme: boolean;
  acmeDirectory: string;
  acmeEmail: string | undefined;
  /** A PEM file of CAs trusted for the ACME directory's HTTPS only, besides Node's roots. */
  acmeCaFile: string | undefined;
  dnsUdpIo: UdpIo;
  /** Addresses and CIDRs that may transfer zones (AXFR/IXFR); empty: none. */
  dnsTransferAllow: string[];
  /** Secondaries told of every zone change (NOTIFY). */
  dnsNotify: ListenAddress[];
  /** TSIG keys, `name:algorithm:base64-secret`: transfers must be signed with one, NOTIFY is. */
  dnsTsigKeys: string[];
  /** This DNS server's identifier (NSID, RFC 5001); undefined: none. */
  dnsNsid: string | undefined;
  /** DNS COOKIE secrets (RFC 9018), newest first; undefined: one derived from the secret key. */
  dnsCookieSecrets: Buffer[] | undefined;
  /** The name of the catalog zone listing every hosted zone for secondaries (RFC 9432); undefined: none. */
  dnsCatalog: string | undefined;
  /** Response rate limit over UDP: identical answers a second per client network; 0: off. */
  dnsRrl: number;
  /** Over the limit, every this-many-th reply is sent truncated, the rest dropped; 0: all dropped. */
  dnsRrlSlip: number;
  /** Seconds between writes of the DNS query and proxy request counts (divides 60). */
  statsFlushSeconds: number;
  /** Days those statistics are kept; 0: for ever. */
  statsRetentionDays: number;
  /** TCP connections the DNS role holds at once, over all its threads. */
  dnsTcpMaxClients: number;
  /** Of those, from one client address (IPv6: one /64). */
  dnsTcpMaxPerClient: number;
  /** Seconds a TCP connection stays open without a query answered or a reply taken by its client. */
  dnsTcpIdleTimeoutSeconds: number;
  /** Replies of one TCP connection waiting to be sent before its queries wait. */
  dnsTcpMaxPipelined: number;
  /** Zone journal entries (incremental transfers, RFC 1995) kept per zone; 0: none, every transfer is full. */
  dnsJournalVersions: number;
  /** Octets of journaled records kept per zone. */
  dnsJournalBytes: number;
  dataDir: string;
  /** A postgres:// URL; undefined means the embedded SQLite file in the data dir. */
  databaseUrl: string | undefined;
  /** PostgreSQL: run the write path's hot statements as named prepared statements (store/prepared.ts). */
  databasePrepare: boolean;
  /** PostgreSQL: how long a query waits for a connection (a new one, or a free one of the pool's). */
  databaseWaitMs: number;
  adminEmail: string;
  /** Undefined means: generate one on first start and print it once. */
  adminPassword: string | undefined;
  compat: Compat;
  logLevel: LogLevel;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** Password hashes computed at once, and how many more may wait (see accounts/password-hasher.ts). */
  passwordHashConcurrency: number;
  passwordHashQueue: number;
  /** HMAC key for access tokens; undefined means the key file in the data dir. */
  jwtSecret: string | undefined;
  /** Key sealing private keys at rest; undefined means the key file in the data dir. */
  secretKey: string | undefined;
  /** The service's own name servers: apex NS of new zones, SOA primary by default. */
  nameservers: string[];
  /** The DNS resolver the API's lookups go through; undefined: none (those endpoints answer 503). */
  resolver: ListenAddress | undefined;
  /** How long one query to it may take. */
  resolverTimeoutMs: number;
  /** Reserved names (public suffixes, single labels, special-use) that may still be created as zones. */
  zoneAllowReserved: string[];
  webhookAllowPrivate: boolean;
  healthcheckAllowPrivate: boolean;
  /** Failed checks in a row that take a record down, and passed checks in a row that bring it back. */
  healthcheckFall: number;
  healthcheckRise: number;
  /** A GeoIP .mmdb replacing the shipped country data; undefined: the shipped data. */
  geoipDb: string | undefined;
  /** The protection proxy's public addresses, reported as a resource's service_ip. */
  publicIpv4: string;
  publicIpv6: string | undefined;
  /** Failures the tests inject into DNS threads (apply-faults.ts); not a setting: no flag, empty unless testing. */
  testApplyFaults: ApplyFault[];
  /** Every health check's interval instead of its `frequency` (50 ms to 60 s): tests only, no flag. */
  testHealthcheckIntervalMs: number | undefined;
  /** EDGEPLANE_TEST_PROXY_EXIT_ON: a proxy worker thread ends when told of a change of the resource of this name (tests only, no flag). */
  testProxyExitOn: string | undefined;
  /** EDGEPLANE_TEST_THREAD_HEARTBEAT: how long a worker thread may leave a ping unanswered before it is ended (tests only, no flag; default 30 s). */
  testThreadHeartbeat: Heartbeat | undefined;
}

export class ConfigError extends Error {}

interface Setting {
  env: string;
  flag: string;
  description: string;
  default?: string;
}

/** Let's Encrypt's production directory. */
const acmeDirectoryDefault = 'https://acme-v02.api.letsencrypt.org/directory';

/** The settings table; the README's configuration table mirrors it. */
export const settings = {
  roles: {
    env: 'EDGEPLANE_ROLES',
    flag: 'roles',
    description: 'What this process runs: api, dns, proxy, or several (comma-separated)',
    default: 'api,dns,proxy',
  },
  apiListen: {
    env: 'EDGEPLANE_API_LISTEN',
    flag: 'api-listen',
    description: 'HTTP API address, host:port (port 0 picks a free port)',
    default: '0.0.0.0:8080',
  },
  dnsListen: {
    env: 'EDGEPLANE_DNS_LISTEN',
    flag: 'dns-listen',
    description: 'DNS address (UDP and TCP), host:port; use port 53 with CAP_NET_BIND_SERVICE',
    default: '0.0.0.0:5353',
  },
  dnsWorkers: {
    env: 'EDGEPLANE_DNS_WORKERS',
    flag: 'dns-workers',
    description: 'DNS worker threads sharing the DNS port (SO_REUSEPORT); unset: one per core',
  },
  proxyHttpListen: {
    env: 'EDGEPLANE_PROXY_HTTP_LISTEN',
    flag: 'proxy-http-listen',
    description: 'The protection proxy\'s plain-HTTP address, host:port (80 with CAP_NET_BIND_SERVICE, see docs/proxy.md)',
    default: '0.0.0.0:8081',
  },
  proxyHttpsListen: {
    env: 'EDGEPLANE_PROXY_HTTPS_LISTEN',
    flag: 'proxy-https-listen',
    description: 'The protection proxy\'s HTTPS address, host:port (443 with CAP_NET_BIND_SERVICE)',
    default: '0.0.0.0:8443',
  },
  proxyWorkers: {
    env: 'EDGEPLANE_PROXY_WORKERS',
    flag: 'proxy-workers',
    description: 'Proxy threads sharing the proxy\'s ports (SO_REUSEPORT); unset: one per core',
  },
  proxyAllowPrivateOrigins: {
    env: 'EDGEPLANE_PROXY_ALLOW_PRIVATE_ORIGINS',
    flag: 'proxy-allow-private-origins',
    description: 'Let origins be loopback, private or link-local addresses (as resolved at connect time): 1 or 0; off, a tenant could reach the operator\'s network',
    default: '0',
  },
  proxyTrusted: {
    env: 'EDGEPLANE_PROXY_TRUSTED',
    flag: 'proxy-trusted',
    description: 'Comma-separated addresses or CIDRs of load balancers in front of the proxy whose X-Forwarded-For is believed; unset: nobody\'s',
  },
  proxyGlobalWhitelist: {
    env: 'EDGEPLANE_PROXY_GLOBAL_WHITELIST',
    flag: 'proxy-global-whitelist',
    description: 'Comma-separated addresses or CIDRs that pass every check of the resources with service_global_whitelist 1 (monitoring, the operator\'s office)',
  },
  proxyBotExemptPaths: {
    env: 'EDGEPLANE_PROXY_BOT_EXEMPT_PATHS',
    flag: 'proxy-bot-exempt-paths',
    description: 'Comma-separated path patterns (`*` matches anything, as in rate rules) that bot protection (service_botprotect 4) lets through without its browser check: APIs, machine-read files; none: every path is checked',
    default: '/api/*,/.well-known/*',
  },
  proxyBotClearance: {
    env: 'EDGEPLANE_PROXY_BOT_CLEARANCE',
    flag: 'proxy-bot-clearance',
    description: 'How long a browser that passed the bot challenge passes without another (seconds, or with an s/m/h/d suffix): the lifetime of its cookie',
    default: '1h',
  },
  proxyHttpProxyProtocol: {
    env: 'EDGEPLANE_PROXY_HTTP_PROXY_PROTOCOL',
    flag: 'proxy-http-proxy-protocol',
    description: '1: every connection to the plain-HTTP listener starts with a PROXY protocol header (v1 or v2) naming the client, as a load balancer sends it; connections without one are closed',
    default: '0',
  },
  proxyHttpsProxyProtocol: {
    env: 'EDGEPLANE_PROXY_HTTPS_PROXY_PROTOCOL',
    flag: 'proxy-https-proxy-protocol',
    description: '1: the same for the HTTPS listener (the header comes before the TLS handshake)',
    default: '0',
  },
  proxyMaxConnections: {
    env: 'EDGEPLANE_PROXY_MAX_CONNECTIONS',
    flag: 'proxy-max-connections',
    description: 'Client connections the proxy holds at once, over all its threads and both listeners; more are reset at once. Each may need an origin connection too: keep it well below the open-file limit (ulimit -n); unset: a quarter of that limit, at most 50000',
  },
  proxyMaxConnectionsPerClient: {
    env: 'EDGEPLANE_PROXY_MAX_CONNECTIONS_PER_CLIENT',
    flag: 'proxy-max-connections-per-client',
    description: 'Of those, connections from one client (an IPv4 address or an IPv6 /64; behind a load balancer, the client its PROXY protocol header names)',
    default: '256',
  },
  proxyHeaderTimeout: {
    env: 'EDGEPLANE_PROXY_HEADER_TIMEOUT',
    flag: 'proxy-header-timeout',
    description: 'A request\'s line and headers, a TLS handshake and a PROXY protocol header must each arrive within this (seconds, or with an ms/s/m suffix); slower clients get 408 and are disconnected',
    default: '20s',
  },
  proxyIdleTimeout: {
    env: 'EDGEPLANE_PROXY_IDLE_TIMEOUT',
    flag: 'proxy-idle-timeout',
    description: 'A client connection without a request in progress (HTTP/1.1 keep-alive, an HTTP/2 session) is closed after this (seconds, or with an ms/s/m suffix)',
    default: '30s',
  },
  proxyBodyTimeout: {
    env: 'EDGEPLANE_PROXY_BODY_TIMEOUT',
    flag: 'proxy-body-timeout',
    description: 'A request body may pause this long (seconds, or with an ms/s/m suffix), and after its first this-long must average EDGEPLANE_PROXY_BODY_MIN_RATE; slower bodies are cut (408)',
    default: '30s',
  },
  proxyBodyMinRate: {
    env: 'EDGEPLANE_PROXY_BODY_MIN_RATE',
    flag: 'proxy-body-min-rate',
    description: 'Bytes a second a request body must average once EDGEPLANE_PROXY_BODY_TIMEOUT has passed (Apache mod_reqtimeout\'s MinRate)',
    default: '500',
  },
  proxyMaxHeaderSize: {
    env: 'EDGEPLANE_PROXY_MAX_HEADER_SIZE',
    flag: 'proxy-max-header-size',
    description: 'Bytes of a request\'s line and headers (HTTP/2: its header list), or with a k suffix; larger requests get 431',
    default: '32k',
  },
  proxyMaxBodySize: {
    env: 'EDGEPLANE_PROXY_MAX_BODY_SIZE',
    flag: 'proxy-max-body-size',
    description: 'Bytes of a request body, or with a k/m/g suffix; larger bodies get 413 (declared) or are cut (chunked); 0: no limit',
    default: '100m',
  },
  proxyAccessLog: {
    env: 'EDGEPLANE_PROXY_ACCESS_LOG',
    flag: 'proxy-access-log',
    description: '1: one JSON line per proxied request on standard output (never the query string or credentials; lines are dropped, and counted, when the output cannot keep up); 0: none',
    default: '1',
  },
  proxyOriginMaxFails: {
    env: 'EDGEPLANE_PROXY_ORIGIN_MAX_FAILS',
    flag: 'proxy-origin-max-fails',
    description: 'Failures of an origin within its fail timeout that take it out for that long (nginx max_fails); 0: never out',
    default: '1',
  },
  proxyOriginFailTimeout: {
    env: 'EDGEPLANE_PROXY_ORIGIN_FAIL_TIMEOUT',
    flag: 'proxy-origin-fail-timeout',
    description: 'The window origin failures are counted in, and how long a failing origin is left out (seconds, or with an s/m suffix; nginx fail_timeout)',
    default: '10',
  },
  proxyOriginConnectTimeout: {
    env: 'EDGEPLANE_PROXY_ORIGIN_CONNECT_TIMEOUT',
    flag: 'proxy-origin-connect-timeout',
    description: 'How long connecting to an origin may take before the next origin is tried (seconds, or with an s/m suffix)',
    default: '5',
  },
  proxyOriginReadTimeout: {
    env: 'EDGEPLANE_PROXY_ORIGIN_READ_TIMEOUT',
    flag: 'proxy-origin-read-timeout',
    description: 'How long an origin may take to start its answer, or pause within it, before the client gets a 504 or is cut off (seconds, or with an s/m suffix)',
    default: '60',
  },
  proxyAttackMinRate: {
    env: 'EDGEPLANE_PROXY_ATTACK_MIN_RATE',
    flag: 'proxy-attack-min-rate',
    description: 'Requests a second to one resource (per proxy thread) below which no rate counts as an attack',
    default: '1000',
  },
  proxyAttackRateFactor: {
    env: 'EDGEPLANE_PROXY_ATTACK_RATE_FACTOR',
    flag: 'proxy-attack-rate-factor',
    description: 'A resource is under attack when its request rate is this many times its usual one (and at least EDGEPLANE_PROXY_ATTACK_MIN_RATE)',
    default: '5',
  },
  proxyAttackErrorPercent: {
    env: 'EDGEPLANE_PROXY_ATTACK_ERROR_PERCENT',
    flag: 'proxy-attack-error-percent',
    description: 'A resource is under attack when this percentage of its forwarded requests (at least 20 in 5 s) fail at the origin (no answer, or a 5xx)',
    default: '50',
  },
  proxyAttackHold: {
    env: 'EDGEPLANE_PROXY_ATTACK_HOLD',
    flag: 'proxy-attack-hold',
    description: 'How long mitigation stays on after the last second that looked like an attack (seconds, or with an s/m suffix)',
    default: '30',
  },
  proxyAttackShedPercent: {
    env: 'EDGEPLANE_PROXY_ATTACK_SHED_PERCENT',
    flag: 'proxy-attack-shed-percent',
    description: 'Under attack, a client sending more than this percentage of a resource\'s recent requests is refused (429) until mitigation ends',
    default: '5',
  },
  proxyAttackShedDelay: {
    env: 'EDGEPLANE_PROXY_ATTACK_SHED_DELAY',
    flag: 'proxy-attack-shed-delay',
    description: 'Under attack, how long a shed request waits for its 429, its connection carrying nothing else meanwhile (seconds, or with an s/m suffix; 0: answered at once)',
    default: '10',
  },
  proxyAttackClientRate: {
    env: 'EDGEPLANE_PROXY_ATTACK_CLIENT_RATE',
    flag: 'proxy-attack-client-rate',
    description: 'Under attack, every client may send a resource at most this many requests a second (with EDGEPLANE_PROXY_ATTACK_CLIENT_BURST at once); 0: no such ceiling',
    default: '20',
  },
  proxyAttackClientBurst: {
    env: 'EDGEPLANE_PROXY_ATTACK_CLIENT_BURST',
    flag: 'proxy-attack-client-burst',
    description: 'Under attack, the requests a client may send a resource at once before EDGEPLANE_PROXY_ATTACK_CLIENT_RATE applies (a page and its assets)',
    default: '100',
  },
  proxyAttackRulePercent: {
    env: 'EDGEPLANE_PROXY_ATTACK_RULE_PERCENT',
    flag: 'proxy-attack-rule-percent',
    description: 'Under attack, a resource\'s rate rules allow this percentage of their value (rate and burst)',
    default: '50',
  },
  redisUrl: {
    env: 'EDGEPLANE_REDIS_URL',
    flag: 'redis-url',
    description: 'redis:// (or rediss://) URL of a Redis every proxy node shares its rate-limit counters through; unset: each node counts alone (docs/proxy.md)',
  },
  wafCrsDir: {
    env: 'EDGEPLANE_WAF_CRS_DIR',
    flag: 'waf-crs-dir',
    description: 'The OWASP Core Rule Set\'s rules directory (REQUEST-*.conf and .data files) the WAF reads, Debian\'s modsecurity-crs by default; a resource with is_waf_enabled is not served when it cannot be read',
    default: '/usr/share/modsecurity-crs/rules',
  },
  wafMode: {
    env: 'EDGEPLANE_WAF_MODE',
    flag: 'waf-mode',
    description: 'block: a request over the anomaly threshold gets 403 with a request id; log: it is forwarded and the match logged (service_waf reports the mode)',
    default: 'block',
  },
  wafParanoia: {
    env: 'EDGEPLANE_WAF_PARANOIA',
    flag: 'waf-paranoia',
    description: 'The Core Rule Set\'s paranoia level, 1 to 4: higher runs more rules, catching more and refusing more legitimate requests',
    default: '1',
  },
  wafAnomalyThreshold: {
    env: 'EDGEPLANE_WAF_ANOMALY_THRESHOLD',
    flag: 'waf-anomaly-threshold',
    description: 'The inbound anomaly score at which the WAF acts (a critical match scores 5)',
    default: '5',
  },
  wafBodyLimit: {
    env: 'EDGEPLANE_WAF_BODY_LIMIT',
    flag: 'waf-body-limit',
    description: 'Bytes of a request body the WAF inspects (k/m suffixes), held until its verdict; the rest streams to the origin uninspected',
    default: '128k',
  },
  wafBudget: {
    env: 'EDGEPLANE_WAF_BUDGET',
    flag: 'waf-budget',
    description: 'How much CPU time (ms, or with an ms/s suffix) inspecting one request may take, time the thread is not run not counted; a request that needs more is refused as the WAF refuses an attack (crafted inputs can make rules slow)',
    default: '100ms',
  },
  acme: {
    env: 'EDGEPLANE_ACME',
    flag: 'acme',
    description: 'Managed certificates for resources with ssl_type "le", issued and renewed through ACME by the proxy role: 1 or 0; unset: on when EDGEPLANE_ACME_DIRECTORY is set',
  },
  acmeDirectory: {
    env: 'EDGEPLANE_ACME_DIRECTORY',
    flag: 'acme-directory',
    description: 'The ACME directory URL certificates are ordered from; setting it agrees to that CA\'s terms of service',
    default: acmeDirectoryDefault,
  },
  acmeEmail: {
    env: 'EDGEPLANE_ACME_EMAIL',
    flag: 'acme-email',
    description: 'Contact e-mail of the ACME account; unset: none',
  },
  acmeCaFile: {
    env: 'EDGEPLANE_ACME_CA_FILE',
    flag: 'acme-ca-file',
    description: 'A PEM file of CA certificates trusted, besides the usual roots, for the ACME directory\'s own HTTPS only (a test CA such as pebble\'s)',
  },
  dnsUdpIo: {
    env: 'EDGEPLANE_DNS_UDP_IO',
    flag: 'dns-udp-io',
    description: 'UDP reads and sends: batched (Linux recvmmsg/sendmmsg, the native addon npm ci builds), dgram (Node\'s, one datagram per call) or auto (batched when the addon loaded)',
    default: 'auto',
  },
  dnsTransferAllow: {
    env: 'EDGEPLANE_DNS_TRANSFER_ALLOW',
    flag: 'dns-transfer-allow',
    description: 'Comma-separated addresses or CIDRs allowed to transfer zones (AXFR, IXFR over TCP); unset: nobody',
  },
  dnsNotify: {
    env: 'EDGEPLANE_DNS_NOTIFY',
    flag: 'dns-notify',
    description: 'Comma-separated ip:port of secondary servers sent a NOTIFY after every zone change; unset: none',
  },
  dnsTsigKeys: {
    env: 'EDGEPLANE_DNS_TSIG_KEYS',
    flag: 'dns-tsig-keys',
    description: 'Comma-separated TSIG keys, name:hmac-sha256|hmac-sha512:base64-secret; when set, zone transfers must be signed with one and NOTIFY is signed with the first',
  },
  dnsNsid: {
    env: 'EDGEPLANE_DNS_NSID',
    flag: 'dns-nsid',
    description: 'This DNS server\'s identifier (NSID, RFC 5001), sent to queries that ask for it (dig +nsid); unset: none',
  },
  dnsCookieSecret: {
    env: 'EDGEPLANE_DNS_COOKIE_SECRET',
    flag: 'dns-cookie-secret',
    description: 'DNS COOKIE server secret (RFC 7873, RFC 9018), 32 hex digits; several comma-separated to rotate (the first makes cookies, all are accepted); every DNS node must share it; unset: derived from the secret key',
  },
  dnsCatalog: {
    env: 'EDGEPLANE_DNS_CATALOG',
    flag: 'dns-catalog',
    description: 'Name of a catalog zone (RFC 9432) listing every hosted zone, for secondaries that read catalogs, e.g. catalog.edgeplane.invalid; unset: none',
  },
  dnsRrl: {
    env: 'EDGEPLANE_DNS_RRL',
    flag: 'dns-rrl',
    description: 'Response rate limiting over UDP: identical answers a second to one client network (IPv4 /24, IPv6 /56); negative answers count as one; 0: off',
    default: '0',
  },
  dnsRrlSlip: {
    env: 'EDGEPLANE_DNS_RRL_SLIP',
    flag: 'dns-rrl-slip',
    description: 'Over the rate limit, every Nth reply is sent truncated (the client retries over TCP) and the others dropped; 0: drop all',
    default: '2',
  },
  statsFlush: {
    env: 'EDGEPLANE_STATS_FLUSH',
    flag: 'stats-flush',
    description: 'Seconds between writes of the statistics to the store: each DNS thread\'s per-zone query counts (GET /dns/v2/zones/{name}/statistics), each proxy process\'s per-resource request counts (GET /security/resources/{id}/statistics); divides 60',
    default: '10',
  },
  statsRetentionDays: {
    env: 'EDGEPLANE_STATS_RETENTION_DAYS',
    flag: 'stats-retention-days',
    description: 'Days the query and request statistics (one-minute buckets) are kept; 0: for ever',
    default: '30',
  },
  dnsTcpMaxClients: {
    env: 'EDGEPLANE_DNS_TCP_MAX_CLIENTS',
    flag: 'dns-tcp-max-clients',
    description: 'TCP connections the DNS server holds at once, over all its threads; more are reset at once. Keep it well below the open-file limit (ulimit -n), which the API and the store share; unset: half that limit, at most 10000',
  },
  dnsTcpMaxPerClient: {
    env: 'EDGEPLANE_DNS_TCP_MAX_PER_CLIENT',
    flag: 'dns-tcp-max-per-client',
    description: 'Of those, TCP connections from one client (an IPv4 address or an IPv6 /64)',
    default: '64',
  },
  dnsTcpIdleTimeout: {
    env: 'EDGEPLANE_DNS_TCP_IDLE_TIMEOUT',
    flag: 'dns-tcp-idle-timeout',
    description: 'A DNS TCP connection is closed after this long (seconds, or with an s/m suffix) without a query answered or a reply taken by its client; stray bytes do not count',
    default: '10',
  },
  dnsTcpMaxPipelined: {
    env: 'EDGEPLANE_DNS_TCP_MAX_PIPELINED',
    flag: 'dns-tcp-max-pipelined',
    description: 'Replies of one DNS TCP connection waiting for its client to read them before the server stops reading its queries',
    default: '100',
  },
  dnsJournalVersions: {
    env: 'EDGEPLANE_DNS_JOURNAL_VERSIONS',
    flag: 'dns-journal-versions',
    description: 'Changes per zone kept in the zone journal for incremental transfers (IXFR); older ones are dropped and a secondary behind them gets the whole zone; 0: no journal',
    default: '100',
  },
  dnsJournalBytes: {
    env: 'EDGEPLANE_DNS_JOURNAL_BYTES',
    flag: 'dns-journal-bytes',
    description: 'Octets of changed records per zone kept in the zone journal; a change larger than this alone clears the zone\'s journal',
    default: '1048576',
  },
  dataDir: {
    env: 'EDGEPLANE_DATA_DIR',
    flag: 'data-dir',
    description: 'Directory for the SQLite store and generated keys',
    default: './data',
  },
  databaseUrl: {
    env: 'EDGEPLANE_DATABASE_URL',
    flag: 'database-url',
    description: 'postgres:// URL; unset means SQLite in the data dir',
  },
  databasePrepare: {
    env: 'EDGEPLANE_DATABASE_PREPARE',
    flag: 'database-prepare',
    description: 'PostgreSQL: run the write path\'s hot statements as named prepared statements; 0 behind a pooler in transaction mode that does not track them (PgBouncer before 1.21)',
    default: '1',
  },
  databaseWait: {
    env: 'EDGEPLANE_DATABASE_WAIT',
    flag: 'database-wait',
    description: 'PostgreSQL: how long a request waits for a connection (a new one, or a free one of the pool\'s 10) before it answers 503 store_unavailable, and how long a statement goes unanswered before its connection is looked at from another one (100ms to 60s)',
    default: '5s',
  },
  adminEmail: {
    env: 'EDGEPLANE_ADMIN_EMAIL',
    flag: 'admin-email',
    description: 'E-mail of the first administrator, created on first start',
    default: 'admin@edgeplane.local',
  },
  adminPassword: {
    env: 'EDGEPLANE_ADMIN_PASSWORD',
    flag: 'admin-password',
    description: 'Password of the first administrator; unset: generated and printed once',
  },
  compat: {
    env: 'EDGEPLANE_COMPAT',
    flag: 'compat',
    description: 'Response shapes: seed (the contract) or gcore (the live provider)',
    default: 'seed',
  },
  logLevel: {
    env: 'EDGEPLANE_LOG_LEVEL',
    flag: 'log-level',
    description: 'fatal, error, warn, info, debug, trace or silent',
    default: 'info',
  },
  accessTokenTtl: {
    env: 'EDGEPLANE_ACCESS_TOKEN_TTL',
    flag: 'access-token-ttl',
    description: 'Lifetime of access JWTs (seconds, or with s/m/h/d suffix)',
    default: '1h',
  },
  refreshTokenTtl: {
    env: 'EDGEPLANE_REFRESH_TOKEN_TTL',
    flag: 'refresh-token-ttl',
    description: 'Lifetime of refresh tokens (seconds, or with s/m/h/d suffix)',
    default: '24h',
  },
  passwordHashConcurrency: {
    env: 'EDGEPLANE_PASSWORD_HASH_CONCURRENCY',
    flag: 'password-hash-concurrency',
    description: 'Password hashes (Argon2id, 19 MiB each) computed at once by logins and user creation; unset: one less than the cores, at most one less than libuv\'s threadpool (UV_THREADPOOL_SIZE, 4 by default), at least 1',
  },
  passwordHashQueue: {
    env: 'EDGEPLANE_PASSWORD_HASH_QUEUE',
    flag: 'password-hash-queue',
    description: 'Password hashes that may wait for one of those; past that, a login or user creation answers 429 with Retry-After at once',
    default: '8',
  },
  jwtSecret: {
    env: 'EDGEPLANE_JWT_SECRET',
    flag: 'jwt-secret',
    description: 'Key signing access tokens (at least 32 characters); unset: a key file in the data dir. Set the same value on every API node',
  },
  secretKey: {
    env: 'EDGEPLANE_SECRET_KEY',
    flag: 'secret-key',
    description: 'Key sealing DNSSEC and TLS private keys at rest (at least 32 characters); unset: a key file in the data dir. Set the same value on every node',
  },
  nameservers: {
    env: 'EDGEPLANE_NAMESERVERS',
    flag: 'nameservers',
    description: 'Comma-separated host names of this service\'s name servers (apex NS of new zones)',
    default: 'ns1.edgeplane.invalid,ns2.edgeplane.invalid',
  },
  resolver: {
    env: 'EDGEPLANE_RESOLVER',
    flag: 'resolver',
    description: 'The DNS resolver (ip or ip:port, [ipv6]:port) the API asks about delegations, parent DS records and lookups, or none; unset: the first nameserver of /etc/resolv.conf',
  },
  resolverTimeout: {
    env: 'EDGEPLANE_RESOLVER_TIMEOUT',
    flag: 'resolver-timeout',
    description: 'How long one query to EDGEPLANE_RESOLVER may take (100ms-10s)',
    default: '3s',
  },
  zoneAllowReserved: {
    env: 'EDGEPLANE_ZONE_ALLOW_RESERVED',
    flag: 'zone-allow-reserved',
    description: 'Comma-separated names that may be created as zones although they are public suffixes, single labels or special-use names (a registry-style deployment); such a zone owns only its apex: other accounts may hold zones below it. Unset: none',
  },
  webhookAllowPrivate: {
    env: 'EDGEPLANE_WEBHOOK_ALLOW_PRIVATE',
    flag: 'webhook-allow-private',
    description: 'Set to 1 to let zone webhooks reach loopback and private addresses',
    default: '0',
  },
  healthcheckAllowPrivate: {
    env: 'EDGEPLANE_HEALTHCHECK_ALLOW_PRIVATE',
    flag: 'healthcheck-allow-private',
    description: 'Set to 1 to let health checks (meta.failover) probe loopback and private addresses',
    default: '0',
  },
  healthcheckFall: {
    env: 'EDGEPLANE_HEALTHCHECK_FALL',
    flag: 'healthcheck-fall',
    description: 'Failed health checks in a row that take an up record out of answers (1-10)',
    default: '3',
  },
  healthcheckRise: {
    env: 'EDGEPLANE_HEALTHCHECK_RISE',
    flag: 'healthcheck-rise',
    description: 'Passed health checks in a row that bring a down record back (1-10)',
    default: '2',
  },
  publicIpv4: {
    env: 'EDGEPLANE_PUBLIC_IPV4',
    flag: 'public-ipv4',
    description: 'Public IPv4 address of the protection proxy: the service_ip clients point their DNS at',
    default: '127.0.0.1',
  },
  publicIpv6: {
    env: 'EDGEPLANE_PUBLIC_IPV6',
    flag: 'public-ipv6',
    description: 'Public IPv6 address of the protection proxy, if any',
  },
  geoipDb: {
    env: 'EDGEPLANE_GEOIP_DB',
    flag: 'geoip-db',
    description: 'A MaxMind-format .mmdb (country or city, optionally ASN) for GeoDNS; unset: the shipped CC0 country data and ASN ranges',
  },
} satisfies Record<string, Setting>;

type SettingName = keyof typeof settings;

const logLevels: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Flags understood by every command that reads the configuration, for node:util parseArgs. */
export const configFlags = Object.fromEntries(
  Object.values(settings).map((s) => [s.flag, { type: 'string' as const }]),
);

export function loadConfig(
  env: NodeJS.ProcessEnv,
  flags: Partial<Record<string, string | boolean | undefined>> = {},
): Config {
  const problems: string[] = [];
  const raw = (name: SettingName): string | undefined => {
    const s: Setting = settings[name];
    const flag = flags[s.flag];
    const value = typeof flag === 'string' ? flag : env[s.env];
    return value === undefined || value === '' ? s.default : value;
  };
  /** Set by the operator, not defaulted. */
  const given = (name: SettingName): boolean => {
    const s: Setting = settings[name];
    const flag = flags[s.flag];
    return (typeof flag === 'string' ? flag : env[s.env] ?? '') !== '';
  };
  const check = <T>(name: SettingName, parse: (v: string) => T, fallback: T): T => {
    const value = raw(name);
    if (value === undefined) return fallback;
    try {
      return parse(value);
    } catch (e) {
      const s: Setting = settings[name];
      problems.push(`${s.env} (--${s.flag}): ${(e as Error).message}`);
      return fallback;
    }
  };

  const config: Config = {
    roles: check('roles', parseRoles, ['api', 'dns', 'proxy']),
    apiListen: check('apiListen', parseListen, { host: '0.0.0.0', port: 8080 }),
    dnsListen: check('dnsListen', parseListen, { host: '0.0.0.0', port: 5353 }),
    dnsWorkers: check('dnsWorkers', (v) => integerIn(v, 1, 64), os.availableParallelism()),
    proxyHttpListen: check('proxyHttpListen', parseListen, { host: '0.0.0.0', port: 8081 }),
    proxyHttpsListen: check('proxyHttpsListen', parseListen, { host: '0.0.0.0', port: 8443 }),
    proxyWorkers: check('proxyWorkers', (v) => integerIn(v, 1, 64), os.availableParallelism()),
    proxyAllowPrivateOrigins: check('proxyAllowPrivateOrigins', parseFlag, false),
    proxyTrusted: check('proxyTrusted', parseNetworkList, []),
    proxyGlobalWhitelist: check('proxyGlobalWhitelist', parseNetworkList, []),
    proxyBotExemptPaths: check('proxyBotExemptPaths', parsePathPatterns, ['/api/*', '/.well-known/*']),
    proxyBotClearanceSeconds: check('proxyBotClearance', (v) => durationIn(v, 60, 30 * 86400), 3600),
    proxyHttpProxyProtocol: check('proxyHttpProxyProtocol', parseFlag, false),
    proxyHttpsProxyProtocol: check('proxyHttpsProxyProtocol', parseFlag, false),
    proxyMaxConnections: check('proxyMaxConnections', parseConnectionCap, openFileShare(0.25, 50_000)),
    proxyMaxConnectionsPerClient: check('proxyMaxConnectionsPerClient', (v) => integerIn(v, 1, 1_000_000), 256),
    proxyHeaderTimeoutMs: check('proxyHeaderTimeout', (v) => millisecondsIn(v, 100, 3_600_000), 20_000),
    proxyIdleTimeoutMs: check('proxyIdleTimeout', (v) => millisecondsIn(v, 100, 3_600_000), 30_000),
    proxyBodyTimeoutMs: check('proxyBodyTimeout', (v) => millisecondsIn(v, 100, 3_600_000), 30_000),
    proxyBodyMinRate: check('proxyBodyMinRate', (v) => integerIn(v, 1, 1_000_000_000), 500),
    proxyMaxHeaderSize: check('proxyMaxHeaderSize', (v) => sizeIn(v, 1024, 1024 * 1024), 32 * 1024),
    proxyMaxBodySize: check('proxyMaxBodySize', (v) => sizeIn(v, 0, 2 ** 50), 100 * 1024 * 1024),
    proxyAccessLog: check('proxyAccessLog', parseFlag, true),
    proxyOriginMaxFails: check('proxyOriginMaxFails', (v) => integerIn(v, 0, 100), 1),
    proxyOriginFailTimeoutSeconds: check('proxyOriginFailTimeout', (v) => durationIn(v, 1, 3600), 10),
    proxyOriginConnectTimeoutSeconds: check('proxyOriginConnectTimeout', (v) => durationIn(v, 1, 300), 5),
    proxyOriginReadTimeoutSeconds: check('proxyOriginReadTimeout', (v) => durationIn(v, 1, 3600), 60),
    proxyAttackMinRate: check('proxyAttackMinRate', (v) => integerIn(v, 1, 100_000_000), 1000),
    proxyAttackRateFactor: check('proxyAttackRateFactor', (v) => integerIn(v, 2, 1000), 5),
    proxyAttackErrorPercent: check('proxyAttackErrorPercent', (v) => integerIn(v, 1, 100), 50),
    proxyAttackHoldSeconds: check('proxyAttackHold', (v) => durationIn(v, 1, 3600), 30),
    proxyAttackShedPercent: check('proxyAttackShedPercent', (v) => integerIn(v, 1, 100), 5),
    proxyAttackShedDelayMs: check('proxyAttackShedDelay', (v) => (v === '0' ? 0 : durationIn(v, 1, 60) * 1000), 10_000),
    proxyAttackClientRate: check('proxyAttackClientRate', (v) => integerIn(v, 0, 1_000_000), 20),
    proxyAttackClientBurst: check('proxyAttackClientBurst', (v) => integerIn(v, 1, 1_000_000), 100),
    proxyAttackRulePercent: check('proxyAttackRulePercent', (v) => integerIn(v, 1, 100), 50),
    redisUrl: check('redisUrl', parseRedisUrl, undefined),
    wafCrsDir: check('wafCrsDir', (v) => v, '/usr/share/modsecurity-crs/rules'),
    wafMode: check('wafMode', (v) => oneOf(v, ['block', 'log'] as const), 'block'),
    wafParanoia: check('wafParanoia', (v) => integerIn(v, 1, 4), 1),
    wafAnomalyThreshold: check('wafAnomalyThreshold', (v) => integerIn(v, 1, 10_000), 5),
    wafBodyLimit: check('wafBodyLimit', (v) => sizeIn(v, 1024, 16 * 1024 * 1024), 128 * 1024),
    wafBudgetMs: check('wafBudget', (v) => millisecondsIn(v, 1, 60_000), 100),
    // Never on by accident: without a directory of its own choosing, an operator turns it on.
    acme: check('acme', parseFlag, given('acmeDirectory')),
    acmeDirectory: check('acmeDirectory', parseHttpsUrl, acmeDirectoryDefault),
    acmeEmail: check('acmeEmail', parseEmail, undefined),
    acmeCaFile: check('acmeCaFile', parseReadableFile, undefined),
    dnsUdpIo: check('dnsUdpIo', (v) => oneOf(v, ['auto', 'batched', 'dgram'] as const), 'auto'),
    dnsTransferAllow: check('dnsTransferAllow', parseNetworkList, []),
    dnsNotify: check('dnsNotify', parseNotifyTargets, []),
    dnsTsigKeys: check('dnsTsigKeys', parseTsigKeys, []),
    dnsNsid: check('dnsNsid', parseNsid, undefined),
    dnsCookieSecrets: check('dnsCookieSecret', parseCookieSecrets, undefined),
    dnsCatalog: check('dnsCatalog', canonicalName, undefined),
    dnsRrl: check('dnsRrl', (v) => integerIn(v, 0, 1_000_000), 0),
    dnsRrlSlip: check('dnsRrlSlip', (v) => integerIn(v, 0, 10), 2),
    statsFlushSeconds: check('statsFlush', parseFlushSeconds, 10),
    statsRetentionDays: check('statsRetentionDays', (v) => integerIn(v, 0, 3650), 30),
    dnsTcpMaxClients: check('dnsTcpMaxClients', parseConnectionCap, defaultMaxClients()),
    dnsTcpMaxPerClient: check('dnsTcpMaxPerClient', (v) => integerIn(v, 1, 1_000_000), 64),
    dnsTcpIdleTimeoutSeconds: check('dnsTcpIdleTimeout', (v) => durationIn(v, 1, 3600), 10),
    dnsTcpMaxPipelined: check('dnsTcpMaxPipelined', (v) => integerIn(v, 1, 65_535), 100),
    dnsJournalVersions: check('dnsJournalVersions', (v) => integerIn(v, 0, 10_000), 100),
    dnsJournalBytes: check('dnsJournalBytes', (v) => integerIn(v, 0, 1024 ** 3), 1024 * 1024),
    dataDir: path.resolve(raw('dataDir') ?? './data'),
    databaseUrl: check('databaseUrl', parseDatabaseUrl, undefined),
    databasePrepare: check('databasePrepare', parseFlag, true),
    databaseWaitMs: check('databaseWait', (v) => millisecondsIn(v, 100, 60_000), 5000),
    adminEmail: check('adminEmail', parseEmail, 'admin@edgeplane.local'),
    adminPassword: check('adminPassword', parsePassword, undefined),
    compat: check('compat', (v) => oneOf(v, ['seed', 'gcore'] as const), 'seed'),
    logLevel: check('logLevel', (v) => oneOf(v, logLevels), 'info'),
    accessTokenTtlSeconds: check('accessTokenTtl', parseDuration, 3600),
    refreshTokenTtlSeconds: check('refreshTokenTtl', parseDuration, 86400),
    passwordHashConcurrency: check('passwordHashConcurrency', (v) => integerIn(v, 1, 1024), defaultHashConcurrency(env)),
    passwordHashQueue: check('passwordHashQueue', (v) => integerIn(v, 0, 100_000), 8),
    jwtSecret: check('jwtSecret', parseSecret, undefined),
    secretKey: check('secretKey', parseSecret, undefined),
    nameservers: check('nameservers', parseNameservers, []),
    resolver: check('resolver', parseResolver, systemResolver()),
    resolverTimeoutMs: check('resolverTimeout', (v) => millisecondsIn(v, 100, 10_000), 3000),
    zoneAllowReserved: check('zoneAllowReserved', parseReservedNames, []),
    webhookAllowPrivate: check('webhookAllowPrivate', parseFlag, false),
    healthcheckAllowPrivate: check('healthcheckAllowPrivate', parseFlag, false),
    healthcheckFall: check('healthcheckFall', (v) => integerIn(v, 1, 10), 3),
    healthcheckRise: check('healthcheckRise', (v) => integerIn(v, 1, 10), 2),
    geoipDb: check('geoipDb', parseReadableFile, undefined),
    publicIpv4: check('publicIpv4', (v) => parseAddress(v, 4), '127.0.0.1'),
    publicIpv6: check('publicIpv6', (v) => parseAddress(v, 6), undefined),
    testApplyFaults: testFaults(env, problems),
    testHealthcheckIntervalMs: testHealthcheckInterval(env, problems),
    testProxyExitOn: env['EDGEPLANE_TEST_PROXY_EXIT_ON'] || undefined,
    testThreadHeartbeat: testThreadHeartbeat(env, problems),
  };
  if (problems.length > 0) {
    throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return config;
}

/** The tests' injected failures, from the environment only (apply-faults.ts). */
function testFaults(env: NodeJS.ProcessEnv, problems: string[]): ApplyFault[] {
  try {
    return parseApplyFaults(env[applyFaultsEnv] ?? '');
  } catch (e) {
    problems.push(`${applyFaultsEnv}: ${(e as Error).message}`);
    return [];
  }
}

/** EDGEPLANE_TEST_THREAD_HEARTBEAT (tests only): `400ms`, a ping unanswered that long ends a worker thread; pings a quarter of it apart. */
function testThreadHeartbeat(env: NodeJS.ProcessEnv, problems: string[]): Heartbeat | undefined {
  const value = env['EDGEPLANE_TEST_THREAD_HEARTBEAT'];
  if (value === undefined || value === '') return undefined;
  try {
    const timeoutMs = millisecondsIn(value, 100, 60_000);
    return { everyMs: Math.ceil(timeoutMs / 4), timeoutMs };
  } catch (e) {
    problems.push(`EDGEPLANE_TEST_THREAD_HEARTBEAT: ${(e as Error).message}`);
    return undefined;
  }
}

/** EDGEPLANE_TEST_HEALTHCHECK_INTERVAL (tests only): `200ms`, `1s`; unset: each check's `frequency`. */
function testHealthcheckInterval(env: NodeJS.ProcessEnv, problems: string[]): number | undefined {
  const value = env['EDGEPLANE_TEST_HEALTHCHECK_INTERVAL'];
  if (value === undefined || value === '') return undefined;
  try {
    return millisecondsIn(value, 50, 60_000);
  } catch (e) {
    problems.push(`EDGEPLANE_TEST_HEALTHCHECK_INTERVAL: ${(e as Error).message}`);
    return undefined;
  }
}

/**
 * The main thread keeps a core for answering requests, and libuv's threadpool a thread for file and
 * DNS-lookup work, whatever the hashing does.
 */
function defaultHashConcurrency(env: NodeJS.ProcessEnv): number {
  const threadpool = Number(env['UV_THREADPOOL_SIZE'] ?? '') || 4;
  return Math.max(1, Math.min(os.availableParallelism() - 1, threadpool - 1));
}

function parseListen(value: string): ListenAddress {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    throw new Error(`expected host:port (e.g. 0.0.0.0:8080 or [::]:8080), got "${value}"`);
  }
  return { host: match[1] ?? match[2] ?? '', port };
}

/** A comma-separated setting's entries, trimmed, empty ones dropped. */
function listOf(value: string): string[] {
  return value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
}

function parseNetworkList(value: string): string[] {
  return listOf(value).map((entry) => {
    try {
      parseNetwork(entry);
    } catch {
      throw new Error(`"${entry}" is not an address or CIDR`);
    }
    return entry;
  });
}

/** Path patterns, or `none`: an empty value takes the default. */
function parsePathPatterns(value: string): string[] {
  if (value.trim() === 'none') return [];
  return listOf(value).map((entry) => {
    if (!/^[/*][\x21-\x7e]*$/.test(entry)) throw new Error(`"${entry}" is not a path pattern: it starts with / (or is *), without spaces`);
    return entry;
  });
}

function parseRedisUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('not a URL; expected redis://[:password@]host:port[/db]');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error(`only redis:// and rediss:// URLs are supported, got "${url.protocol}//"`);
  return value;
}

function parseNsid(value: string): string {
  if (!/^[\x21-\x7e]{1,128}$/.test(value)) throw new Error('expected 1 to 128 printable ASCII characters without spaces');
  return value;
}

function parseTsigKeys(value: string): string[] {
  const keys = listOf(value);
  // The message names the key, never the secret.
  for (const key of keys) parseTsigKey(key);
  return keys;
}

/** `ip`, `ip:port` or `[ipv6]:port` (port 53 by default), or `none`. */
function parseResolver(value: string): ListenAddress | undefined {
  if (value.trim() === 'none') return undefined;
  const bare = value.trim();
  const target = isIP(bare) !== 0 ? { host: bare, port: 53 } : (() => {
    try {
      return parseListen(bare);
    } catch {
      throw new Error(`expected an IP address with an optional port (192.0.2.53, 192.0.2.53:5353, [2001:db8::53]:53) or none, got "${value}"`);
    }
  })();
  if (isIP(target.host) === 0) throw new Error(`"${target.host}" is not an IP address: the resolver is given by address, as a host name would need a resolver to find it`);
  if (target.port === 0) throw new Error('the resolver\'s port may not be 0');
  // One text form per address, as replies are matched against it.
  return { host: ipaddr.parse(target.host).toString(), port: target.port };
}

/** The first usable `nameserver` line of /etc/resolv.conf, or undefined (no file, none listed). */
function systemResolver(): ListenAddress | undefined {
  let text: string;
  try {
    text = fs.readFileSync('/etc/resolv.conf', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const address = /^\s*nameserver\s+(\S+)/.exec(line)?.[1];
    // A scoped IPv6 address (fe80::1%eth0) cannot be matched against replies: skipped.
    if (address !== undefined && isIP(address) !== 0) return { host: ipaddr.parse(address).toString(), port: 53 };
  }
  return undefined;
}

function parseNotifyTargets(value: string): ListenAddress[] {
  return listOf(value).map((entry) => {
    const target = parseListen(entry);
    if (isIP(target.host) === 0 || target.port === 0) throw new Error(`"${entry}" is not ip:port (an IP address and a port)`);
    return target;
  });
}

function parseDatabaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('not a URL; expected postgres://user@host:port/database');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new Error(`only postgres:// URLs are supported, got "${url.protocol}//"`);
  }
  return value;
}

function parseHttpsUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`not a URL: "${value}"`);
  }
  if (url.protocol !== 'https:') throw new Error(`expected an https:// URL, got "${value}"`);
  return url.toString();
}

export function parseEmail(value: string): string {
  // Deliberately loose: one @, no spaces, a dot-free local host is fine for self-hosting.
  if (!/^[^\s@]+@[^\s@]+$/.test(value) || value.length > 254) {
    throw new Error(`not an e-mail address: "${value}"`);
  }
  return value.toLowerCase();
}

function parsePassword(value: string): string {
  if (value.length < minPasswordLength) throw new Error(`must be at least ${String(minPasswordLength)} characters`);
  return value;
}

function parseSecret(value: string): string {
  if (value.length < 32) throw new Error('must be at least 32 characters');
  return value;
}

function parseReadableFile(value: string): string {
  const file = path.resolve(value);
  try {
    fs.accessSync(file, fs.constants.R_OK);
  } catch {
    throw new Error(`cannot read ${file}`);
  }
  return file;
}

function parseAddress(value: string, family: 4 | 6): string {
  if (isIP(value) !== family) throw new Error(`expected an IPv${String(family)} address, got "${value}"`);
  return value;
}

/** Seconds that divide a minute, so that each write's interval lies in one one-minute bucket. */
function parseFlushSeconds(value: string): number {
  const seconds = integerIn(value, 1, 60);
  if (60 % seconds !== 0) throw new Error('must divide 60 (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30 or 60)');
  return seconds;
}

function integerIn(value: string, low: number, high: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < low || n > high) throw new Error(`expected an integer ${String(low)}-${String(high)}, got "${value}"`);
  return n;
}


/** Below the open-file limit where it is known: at that many connections nothing else could open a file. */
function parseConnectionCap(value: string): number {
  const limit = openFileLimit();
  const n = integerIn(value, 1, 1_000_000);
  if (limit !== undefined && n >= limit) throw new Error(`${value} is not below this process's open-file limit (${String(limit)})`);
  return n;
}

const millisecondUnits: Record<string, number> = { '': 1000, ms: 1, s: 1000, m: 60_000 };

/** `20` and `20s` are seconds; `500ms` and `2m` as they say. */
function millisecondsIn(value: string, low: number, high: number): number {
  const match = /^(\d+)(ms|s|m)?$/.exec(value.trim());
  const ms = match ? Number(match[1]) * (millisecondUnits[match[2] ?? ''] ?? 1000) : NaN;
  if (!Number.isSafeInteger(ms) || ms < low || ms > high) throw new Error(`expected ${String(low)} ms to ${String(high / 1000)} s, such as 20, 20s or 500ms, got "${value}"`);
  return ms;
}

const sizeUnits: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** Bytes: `1048576`, `1024k`, `1m`, `1g` (binary multiples, either case). */
function sizeIn(value: string, low: number, high: number): number {
  const match = /^(\d+)([kmg]?)$/.exec(value.trim().toLowerCase());
  const bytes = match ? Number(match[1]) * (sizeUnits[match[2] ?? ''] ?? 1) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < low || bytes > high) throw new Error(`expected ${String(low)} to ${String(high)} bytes, such as 65536, 64k or 100m, got "${value}"`);
  return bytes;
}

function durationIn(value: string, low: number, high: number): number {
  const seconds = parseDuration(value);
  if (seconds < low || seconds > high) throw new Error(`expected ${String(low)} to ${String(high)} seconds, got "${value}"`);
  return seconds;
}

function parseRoles(value: string): Role[] {
  const roles = [...new Set(listOf(value))];
  if (roles.length === 0) throw new Error('expected api, dns, proxy or several');
  return roles.map((r) => oneOf(r, ['api', 'dns', 'proxy'] as const));
}

function parseNameservers(value: string): string[] {
  const names = listOf(value);
  if (names.length === 0) throw new Error('expected at least one host name');
  return names.map((n) => canonicalName(n));
}

function parseReservedNames(value: string): string[] {
  return listOf(value).map((entry) => {
    const name = canonicalName(entry);
    // A name that is not reserved needs no exception: most likely a typo of the one meant.
    if (reservedNameProblem(name) === undefined) throw new Error(`"${entry}" is not a public suffix, single label or special-use name: it needs no exception`);
    return name;
  });
}

function parseFlag(value: string): boolean {
  if (['1', 'true', 'yes'].includes(value.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(value.toLowerCase())) return false;
  throw new Error(`expected 1 or 0, got "${value}"`);
}

function oneOf<T extends string>(value: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined) throw new Error(`expected one of ${allowed.join(', ')}, got "${value}"`);
  return found;
}

const durationUnits: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86400 };

function parseDuration(value: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(value.trim());
  const seconds = match ? Number(match[1]) * (durationUnits[match[2] ?? ''] ?? 1) : NaN;
  if (!Number.isSafeInteger(seconds) || seconds <= 0) {
    throw new Error(`expected a positive duration such as 3600, 60m, 1h or 1d, got "${value}"`);
  }
  return seconds;
}
