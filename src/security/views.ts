// How a protected resource looks in responses: the single shape of the contract, and the list
// shape, which omits service_botprotect, service_hsts, service_waf and service_client_id.
import { X509Certificate } from 'node:crypto';
import type { ResourceDetails, ResourceRow } from '../store/resources.ts';
import { settingDefaults, type Settings } from './resource-input.ts';

/** Millisecond ISO 8601 in UTC, as the contract shows (`2026-11-22T09:54:46.441Z`). */
const iso = (text: string) => new Date(text).toISOString();

function leafOf(chain: string | null): X509Certificate | undefined {
  if (chain === null) return undefined;
  try {
    return new X509Certificate(chain);
  } catch {
    return undefined;
  }
}

/**
 * `released` lists the names and aliases the resource does not hold (host-ownership.ts): returned
 * as `released_hosts` only when there are some, so the contract's shapes stay exact otherwise.
 */
export function resourceView(resource: ResourceRow, details: ResourceDetails, released: string[], serviceIp: string, shape: 'single' | 'list', wafMode: 'block' | 'log') {
  const settings: Settings = { ...settingDefaults, ...(JSON.parse(resource.settings) as Partial<Settings>) };
  // A custom certificate or a managed one ACME issued: an alias it does not cover shows 0.
  const leaf = resource.ssl_type === 'custom' || resource.ssl_type === 'le' ? leafOf(resource.ssl_crt) : undefined;
  const enabled = settings.service_enable === 1;
  const view = {
    id: resource.id,
    name: resource.name,
    // Served: enabled, with an origin to send to and at least one host name it holds.
    active: enabled && details.origins.some((o) => o.origin_mode !== 'down') && released.length < 1 + details.aliases.length,
    client: resource.account_id,
    enabled,
    created: iso(resource.created_at),
    updated: iso(resource.updated_at),
    is_waf_enabled: settings.is_waf_enabled,
    is_redirect_to_https_enabled: settings.is_redirect_to_https_enabled,
    status: enabled ? 'active' : 'disabled',
    service_id: resource.id,
    service_ip: serviceIp,
    aliases: details.aliases.map((a) => ({
      id: a.id,
      alias_id: a.id,
      alias_data: a.alias_data,
      alias_ssl_expire: leaf?.checkHost(a.alias_data) === undefined ? 0 : resource.ssl_expire,
    })),
    origins: details.origins.map((o) => ({ id: o.id, origin_id: o.id, origin_data: o.origin_data, origin_weight: o.origin_weight, origin_mode: o.origin_mode })),
    rate_limier_rules: details.rules.map((r) => ({ method: r.method, path: r.path, value: r.value, test_cookie: r.test_cookie === 1 })),
    blacklists: details.lists.filter((l) => l.kind === 'black').map((l) => ({ id: l.id, blacklist_id: l.id, blacklist_data: l.data })),
    whitelists: details.lists.filter((l) => l.kind === 'white').map((l) => ({ id: l.id, whitelist_id: l.id, whitelist_data: l.data })),
    service_https2http: settings.service_https2http,
    service_http2: settings.service_http2,
    service_ssl_expire: resource.ssl_expire,
    service_iphash: settings.service_iphash,
    service_enable: settings.service_enable,
    service_geoip_mode: settings.service_geoip_mode,
    service_geoip_list: settings.service_geoip_list,
    service_methods: settings.service_methods,
    service_forcessl: settings.is_redirect_to_https_enabled ? 1 : 0,
    service_wwwredir: settings.service_wwwredir,
    service_cdn: settings.service_cdn,
    service_cdn_host: settings.service_cdn_host,
    service_cdn_proxy_host: settings.service_cdn_proxy_host,
    service_stream: settings.service_stream,
    service_global_whitelist: settings.service_global_whitelist,
    ssl_type: resource.ssl_type,
    ...(released.length > 0 ? { released_hosts: released } : {}),
  };
  if (shape === 'list') return view;
  return {
    ...view,
    service_botprotect: settings.service_botprotect,
    service_hsts: settings.service_hsts,
    // The API's switch is a boolean; how the proxy acts on it is the operator's EDGEPLANE_WAF_MODE.
    service_waf: settings.is_waf_enabled ? wafMode : 'off',
    service_client_id: resource.account_id,
  };
}
