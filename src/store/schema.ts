// Table shapes as Kysely sees them. Flags are 0/1 integers and times ISO 8601 strings on both
// engines, so repositories read the same values from SQLite and PostgreSQL.
import type { Generated } from 'kysely';

/** The largest id: ids are `serial` (32-bit) columns on PostgreSQL. */
export const maxId = 2_147_483_647;

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  email: string;
  /** 1 for the platform operators' account (the first one); its administrators create accounts. */
  operator: number;
  created_at: string;
}

export interface UsersTable {
  id: Generated<number>;
  account_id: number;
  email: string;
  name: string;
  password_hash: string;
  role: string;
  created_at: string;
}

export interface ApiTokensTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  name: string;
  description: string;
  role: string;
  secret_hash: string;
  exp_date: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface RefreshTokensTable {
  id: Generated<number>;
  user_id: number;
  /** Every rotation of one login shares a family (the session id); reuse of a spent token voids it. */
  family: string;
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface RevokedSessionsTable {
  /** A refresh-token family whose access tokens are refused. */
  session: string;
  revoked_at: string;
  /** When the last access token issued in it has expired: the row may go. */
  expires_at: string;
}

export interface ZonesTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  contact: string;
  primary_server: string;
  serial: number;
  refresh: number;
  retry: number;
  expiry: number;
  nx_ttl: number;
  enabled: number;
  dnssec_enabled: number;
  /** JSON object. */
  meta: string;
  created_at: string;
  updated_at: string;
  /** The store's zone version (ZoneVersionTable) when this zone last changed. */
  version: Generated<number>;
  /**
   * No live journal entry of the zone has a lower version (0016_journal_from.ts): where scans of
   * its journal start. Kept by PostgreSQL's changes; 0 on SQLite, whose deletes leave nothing behind.
   */
  journal_from: Generated<number>;
}

export interface RrsetsTable {
  id: Generated<number>;
  zone_id: number;
  name: string;
  type: string;
  ttl: number;
  /** JSON object. */
  meta: string;
  /** JSON array, or null for a static RRset. */
  pickers: string | null;
  /** 1 for a dynamic RRset with health checks (meta.failover or a health picker). */
  healthcheck: number;
  updated_at: string;
}

export interface RecordsTable {
  id: Generated<number>;
  rrset_id: number;
  position: number;
  /** JSON array: the canonical content. */
  content: string;
  enabled: number;
  /** JSON object. */
  meta: string;
}

export interface DnssecKeysTable {
  zone_id: number;
  algorithm: number;
  flags: number;
  key_tag: number;
  public_key: string;
  private_key_sealed: string;
  created_at: string;
}

export interface WebhookOutboxTable {
  id: Generated<number>;
  zone_id: number | null;
  url: string;
  method: string;
  /** JSON body. */
  payload: string;
  attempts: Generated<number>;
  next_attempt_at: string;
  last_error: string | null;
  delivered_at: string | null;
  failed_at: string | null;
  created_at: string;
}

export interface ResourcesTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** JSON object of the service_* settings and the is_* flags. */
  settings: string;
  ssl_type: string | null;
  ssl_crt: string | null;
  ssl_key_sealed: string | null;
  ssl_expire: number;
  created_at: string;
  updated_at: string;
}

export interface ResourceHostsTable {
  hostname: string;
  resource_id: number;
}

export interface ResourceAliasesTable {
  id: Generated<number>;
  resource_id: number;
  position: number;
  alias_data: string;
}

export interface ResourceOriginsTable {
  id: Generated<number>;
  resource_id: number;
  position: number;
  origin_data: string;
  origin_weight: number;
  origin_mode: string;
}

export interface ResourceRateRulesTable {
  id: Generated<number>;
  resource_id: number;
  position: number;
  method: string;
  path: string;
  value: number;
  test_cookie: number;
}

export interface ResourceAccessListsTable {
  id: Generated<number>;
  resource_id: number;
  kind: string;
  position: number;
  data: string;
}

export interface ZoneVersionTable {
  /** Always 1: one row. */
  id: number;
  /** Raised by every committed change of any zone, in commit order (the row is locked until then). */
  version: number;
}

export interface ZoneJournalTable {
  id: Generated<number>;
  zone_id: number;
  /** The store's zone version of the change: a zone's entries in this order follow its serials. */
  version: number;
  serial_from: number;
  serial_to: number;
  /** JSON: the records removed, the old SOA first (src/dns/journal/journal-records.ts). */
  removed: string;
  /** JSON: the records added, the new SOA first. */
  added: string;
  /** Octets of `removed` and `added`: what the per-zone bound counts. */
  size: number;
}

export interface ZoneCatalogTable {
  /** Always 1: one row. */
  id: number;
  /** The catalog zone's SOA serial; raised with every change of which zones are served. */
  serial: number;
}

export interface AcmeAccountsTable {
  /** The ACME directory URL: one account per CA. */
  directory: string;
  key_sealed: string;
  url: string | null;
  created_at: string;
}

export interface AcmeChallengesTable {
  token: string;
  resource_id: number;
  host: string;
  key_authorization: string;
  expires_at: string;
}

export interface AcmeAttemptsTable {
  resource_id: number;
  hosts: string;
  failures: number;
  retry_at: string;
  error: string;
}

export interface AcmeLeaseTable {
  name: string;
  holder: string;
  expires_at: string;
}

export interface DnsQueryCountsTable {
  zone_id: number;
  /** Unix seconds of the minute's start. */
  bucket: number;
  /** The QTYPE; 0 for a type the counters do not name (dns/server/metrics.ts). */
  qtype: number;
  rcode: number;
  /** bigint: PostgreSQL hands it back as a string. */
  count: number;
}

export interface ProxyRequestCountsTable {
  resource_id: number;
  /** Unix seconds of the minute's start. */
  bucket: number;
  /** passed, origin_error, or the reason of the proxy's own answer (proxy-metrics.ts). */
  outcome: string;
  count: number;
}

/** A health-checked record's state as the DNS nodes agreed on it (dns/health/checker.ts). */
export interface FailoverStatesTable {
  rrset_id: number;
  /** The record's address, as its content holds it. */
  address: string;
  /** 1 up, 0 down. */
  up: number;
  /** Unix seconds of the last change (or of the first verdict). */
  changed_at: number;
}

/** One change of a checked record's state: the newest `failoverLogKept` per RRset are kept. */
export interface FailoverLogTable {
  id: Generated<number>;
  rrset_id: number;
  address: string;
  /** `up` or `down`: the state the record changed to. */
  action: string;
  /** Unix seconds. */
  time: number;
}

export interface DnsNetworkMappingsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** JSON: [{tags, cidr4, cidr6}] (dns/network-mappings.ts). */
  mapping: string;
  created_at: string;
  updated_at: string;
}

export interface Tables {
  accounts: AccountsTable;
  users: UsersTable;
  api_tokens: ApiTokensTable;
  refresh_tokens: RefreshTokensTable;
  revoked_sessions: RevokedSessionsTable;
  zones: ZonesTable;
  rrsets: RrsetsTable;
  records: RecordsTable;
  dnssec_keys: DnssecKeysTable;
  dns_query_counts: DnsQueryCountsTable;
  dns_network_mappings: DnsNetworkMappingsTable;
  proxy_request_counts: ProxyRequestCountsTable;
  webhook_outbox: WebhookOutboxTable;
  resources: ResourcesTable;
  resource_hosts: ResourceHostsTable;
  resource_aliases: ResourceAliasesTable;
  resource_origins: ResourceOriginsTable;
  resource_rate_rules: ResourceRateRulesTable;
  resource_access_lists: ResourceAccessListsTable;
  zone_catalog: ZoneCatalogTable;
  zone_version: ZoneVersionTable;
  zone_journal: ZoneJournalTable;
  acme_accounts: AcmeAccountsTable;
  acme_challenges: AcmeChallengesTable;
  acme_attempts: AcmeAttemptsTable;
  acme_lease: AcmeLeaseTable;
  failover_states: FailoverStatesTable;
  failover_log: FailoverLogTable;
}
