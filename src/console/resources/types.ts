// A protected resource as /security/resources answers it (docs/api/security.md): the list shape,
// and what the single shape adds. The field names are the contract's, misspellings included.
export type OriginMode = 'primary' | 'backup' | 'down';

export interface Alias {
  id: number;
  alias_id: number;
  alias_data: string;
  /** UNIX seconds; 0 when the certificate does not cover this alias. */
  alias_ssl_expire: number;
}

export interface Origin {
  id?: number;
  origin_data: string;
  origin_weight: number;
  origin_mode: OriginMode;
}

export interface RateRule {
  method: string;
  path: string;
  value: number;
  test_cookie: boolean;
}

export interface ResourceListItem {
  id: number;
  name: string;
  active: boolean;
  enabled: boolean;
  created: string;
  updated: string;
  status: string;
  service_ip: string;
  is_waf_enabled: boolean;
  is_redirect_to_https_enabled: boolean;
  aliases: Alias[];
  origins: Origin[];
  rate_limier_rules: RateRule[];
  blacklists: { id: number; blacklist_data: string }[];
  whitelists: { id: number; whitelist_data: string }[];
  service_enable: number;
  service_https2http: number;
  service_http2: number;
  service_iphash: number;
  service_wwwredir: number;
  service_forcessl: number;
  service_geoip_mode: number;
  service_geoip_list: string;
  service_methods: string;
  service_global_whitelist: number;
  service_cdn: number;
  service_cdn_host: string;
  service_cdn_proxy_host: string;
  service_stream: number;
  /** UNIX seconds of the leaf's notAfter; 0 without a certificate. */
  service_ssl_expire: number;
  ssl_type: string | null;
  /** Names and aliases that went to the account of a zone created over them. */
  released_hosts?: string[];
}

export interface Resource extends ResourceListItem {
  service_botprotect: number;
  service_hsts: number;
  /** `block` or `log` (the operator's WAF mode) when on, `off` when off. */
  service_waf: string;
  service_client_id: number;
}

export interface RequestStatistics {
  /** interval start (Unix ms) → requests */
  requests: Record<string, number>;
  total: number;
  outcomes: Record<string, number>;
}

/** A UNIX time as `2026-08-01 12:00 UTC`: the same in every locale, so it can be compared and quoted. */
export function utcTime(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
