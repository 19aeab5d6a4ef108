// A resource body (create or PUT) → validated values, with every problem reported by its JSON path.
// PUT replaces the whole document: an absent list is empty and an absent setting takes its default;
// only the TLS settings are kept when absent, because the private key is never read back.
import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { invalid, type FieldErrors } from '../errors.ts';
import { canonicalName, NameError, trimName } from '../dns/names.ts';
import { isCountryCode } from '../geo/codes.ts';

export const originModes = ['primary', 'backup', 'down'] as const;
export const ruleMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', '*'] as const;

/** The switchable settings: 0/1 unless listed otherwise; documented in docs/api/security.md. */
const flags = [
  'service_enable',
  'service_https2http',
  'service_http2',
  'service_iphash',
  'service_wwwredir',
  'service_cdn',
  'service_stream',
  'service_global_whitelist',
  'service_hsts',
] as const;

export const settingDefaults = {
  is_waf_enabled: false,
  is_redirect_to_https_enabled: false,
  service_enable: 1,
  service_https2http: 0,
  service_http2: 1,
  service_iphash: 0,
  service_wwwredir: 0,
  service_cdn: 0,
  service_stream: 0,
  service_global_whitelist: 0,
  service_hsts: 0,
  service_botprotect: 0,
  service_geoip_mode: 0,
  service_geoip_list: '',
  service_methods: '',
  service_cdn_host: '',
  service_cdn_proxy_host: '',
};

export type Settings = typeof settingDefaults;

export interface OriginInput {
  origin_data: string;
  origin_weight: number;
  origin_mode: (typeof originModes)[number];
}

export interface RateRuleInput {
  method: string;
  path: string;
  value: number;
  test_cookie: boolean;
}

export type TlsInput = { type: 'keep' } | { type: 'none' } | { type: 'le' } | { type: 'custom'; crt: string | undefined; key: string | undefined };

export interface ResourceInput {
  name: string;
  aliases: string[];
  origins: OriginInput[];
  rules: RateRuleInput[];
  blacklists: string[];
  whitelists: string[];
  settings: Settings;
  tls: TlsInput;
}

const limits = { aliases: 100, origins: 100, rules: 100, lists: 1000 };

const integer = (v: unknown) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v);

function hostname(value: unknown, path: string, fields: FieldErrors): string | undefined {
  try {
    if (typeof value !== 'string') throw new NameError('must be a host name');
    const name = canonicalName(trimName(value));
    // No top-level domain is all digits: `999.1.1.1` is a mistyped address, not a host name.
    if (/^\d+$/.test(name.slice(name.lastIndexOf('.') + 1))) throw new NameError('is neither an IP address nor a host name');
    return name;
  } catch (e) {
    if (!(e instanceof NameError)) throw e;
    fields[path] = e.message;
    return undefined;
  }
}

function array(body: Record<string, unknown>, key: string, max: number, fields: FieldErrors): unknown[] {
  const value = body[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    fields[key] = 'must be an array';
    return [];
  }
  if (value.length > max) fields[key] = `at most ${String(max)} entries`;
  return value.slice(0, max);
}

const item = (value: unknown) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/** An origin: an IP address, or a host name, optionally with a port (`[v6]:port` for IPv6). */
function origin(value: unknown, path: string, fields: FieldErrors): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') {
    fields[path] = 'must be an IP address or host name, optionally with :port';
    return undefined;
  }
  const text = value.trim();
  const bracketed = /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$/.exec(text);
  const plain = /^([^:[\]]+)(?::(\d{1,5}))?$/.exec(text);
  const host = bracketed?.[1] ?? (isIP(text) === 6 ? text : plain?.[1]);
  const port = bracketed?.[2] ?? (isIP(text) === 6 ? undefined : plain?.[2]);
  if (host === undefined || (port !== undefined && (Number(port) < 1 || Number(port) > 65535))) {
    fields[path] = 'must be an IP address or host name, optionally with :port (1-65535)';
    return undefined;
  }
  if (isIP(host) !== 0) {
    const canonical = ipaddr.parse(host).toString();
    const shown = isIP(host) === 6 && port !== undefined ? `[${canonical}]` : canonical;
    return port === undefined ? shown : `${shown}:${port}`;
  }
  const name = hostname(host, path, fields);
  return name === undefined ? undefined : port === undefined ? name : `${name}:${port}`;
}

/** An address or CIDR, in canonical form (the network address for a CIDR). */
function network(value: unknown, path: string, fields: FieldErrors): string | undefined {
  if (typeof value === 'string') {
    const text = value.trim();
    try {
      if (text.includes('/')) {
        const [address, prefix] = ipaddr.parseCIDR(text);
        const base = address.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(text) : ipaddr.IPv6.networkAddressFromCIDR(text);
        return `${base.toString()}/${String(prefix)}`;
      }
      if (ipaddr.isValid(text)) return ipaddr.parse(text).toString();
    } catch {
      // Reported below.
    }
  }
  fields[path] = 'must be an IP address or a CIDR';
  return undefined;
}

function settingsOf(body: Record<string, unknown>, fields: FieldErrors): Settings {
  const settings: Settings = { ...settingDefaults };
  for (const key of ['is_waf_enabled', 'is_redirect_to_https_enabled'] as const) {
    const value = body[key];
    if (value === undefined) continue;
    if (typeof value === 'boolean') settings[key] = value;
    else fields[key] = 'must be a boolean';
  }
  // service_forcessl is the integer twin of is_redirect_to_https_enabled; the boolean wins.
  const forcessl = integer(body['service_forcessl']);
  if (forcessl !== undefined && body['is_redirect_to_https_enabled'] === undefined) {
    if (forcessl === 0 || forcessl === 1) settings.is_redirect_to_https_enabled = forcessl === 1;
    else fields['service_forcessl'] = 'must be 0 or 1';
  }
  for (const key of flags) {
    const value = integer(body[key]);
    if (value === undefined) continue;
    if (value === 0 || value === 1) settings[key] = value;
    else fields[key] = 'must be 0 or 1';
  }
  const botprotect = integer(body['service_botprotect']);
  if (botprotect !== undefined) {
    if (botprotect === 0 || botprotect === 4) settings.service_botprotect = botprotect;
    else fields['service_botprotect'] = 'must be 0 (off) or 4 (on)';
  }
  const geoMode = integer(body['service_geoip_mode']);
  if (geoMode !== undefined) {
    if (geoMode === 0 || geoMode === 1 || geoMode === 2) settings.service_geoip_mode = geoMode;
    else fields['service_geoip_mode'] = 'must be 0 (off), 1 (all but the list) or 2 (only the list)';
  }
  const geoList = body['service_geoip_list'];
  if (geoList !== undefined) {
    const codes = typeof geoList === 'string' ? geoList.split(',').map((c) => c.trim().toUpperCase()).filter((c) => c !== '') : undefined;
    const bad = codes?.find((c) => !isCountryCode(c));
    if (codes === undefined || bad !== undefined) fields['service_geoip_list'] = `must be comma-separated ISO 3166-1 alpha-2 codes${bad === undefined ? '' : `; "${bad}" is not one`}`;
    else settings.service_geoip_list = [...new Set(codes)].join(',');
  }
  const methods = body['service_methods'];
  if (methods !== undefined) {
    // The contract's samples send it as an integer and as a string; it is kept as a string.
    if (typeof methods === 'string' || typeof methods === 'number') settings.service_methods = String(methods);
    else fields['service_methods'] = 'must be a string or an integer';
  }
  for (const key of ['service_cdn_host', 'service_cdn_proxy_host'] as const) {
    const value = body[key];
    if (value === undefined || value === '') continue;
    const name = hostname(value, key, fields);
    if (name !== undefined) settings[key] = name;
  }
  return settings;
}

function tlsOf(body: Record<string, unknown>, fields: FieldErrors): TlsInput {
  const type = body['ssl_type'];
  const crt = body['service_ssl_crt'];
  const key = body['service_ssl_key'];
  for (const [name, value] of [['service_ssl_crt', crt], ['service_ssl_key', key]] as const) {
    if (value !== undefined && typeof value !== 'string') fields[name] = 'must be a PEM string';
  }
  if (type === undefined) return crt === undefined && key === undefined ? { type: 'keep' } : { type: 'custom', crt: crt as string | undefined, key: key as string | undefined };
  if (type === '' || type === 'none') return { type: 'none' };
  if (type === 'le') return { type: 'le' };
  if (type === 'custom') return { type: 'custom', crt: crt as string | undefined, key: key as string | undefined };
  fields['ssl_type'] = 'must be "custom", "le", or "" to turn HTTPS off';
  return { type: 'keep' };
}

export function validateResource(body: Record<string, unknown>): ResourceInput {
  const fields: FieldErrors = {};
  const name = hostname(body['name'], 'name', fields) ?? '';
  const aliases = array(body, 'aliases', limits.aliases, fields).map((a, i) => hostname(item(a)['alias_data'], `aliases[${String(i)}].alias_data`, fields) ?? '');
  aliases.forEach((alias, i) => {
    if (alias !== '' && (alias === name || aliases.indexOf(alias) !== i)) fields[`aliases[${String(i)}].alias_data`] = 'repeats the name or another alias';
  });
  const origins = array(body, 'origins', limits.origins, fields).map((raw, i): OriginInput => {
    const o = item(raw);
    const at = `origins[${String(i)}]`;
    const weight = integer(o['origin_weight'] ?? 1);
    if (typeof weight !== 'number' || !Number.isInteger(weight) || weight < 1 || weight > 100) fields[`${at}.origin_weight`] = 'must be an integer 1-100';
    const mode = o['origin_mode'] ?? 'primary';
    if (!originModes.includes(mode as OriginInput['origin_mode'])) fields[`${at}.origin_mode`] = 'must be primary, backup or down';
    return { origin_data: origin(o['origin_data'], `${at}.origin_data`, fields) ?? '', origin_weight: Number(weight), origin_mode: mode as OriginInput['origin_mode'] };
  });
  const rules = array(body, 'rate_limier_rules', limits.rules, fields).map((raw, i): RateRuleInput => {
    const r = item(raw);
    const at = `rate_limier_rules[${String(i)}]`;
    const method = typeof r['method'] === 'string' ? r['method'].toUpperCase() : '';
    if (!ruleMethods.includes(method as (typeof ruleMethods)[number])) fields[`${at}.method`] = `must be one of ${ruleMethods.join(', ')}`;
    // The provider's own example writes `helloworld` for `/helloworld`: read so, not refused.
    const given = r['path'];
    const path = typeof given === 'string' && !given.startsWith('/') ? `/${given}` : given;
    if (typeof path !== 'string' || !/^\/[\x21-\x7e]{0,1023}$/.test(path)) fields[`${at}.path`] = 'must be a path of printable characters (`*` matches anything; a leading / is added when missing)';
    const value = integer(r['value']);
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 100_000) fields[`${at}.value`] = 'must be an integer 0-100000 (requests per second; 0: unlimited)';
    const cookie = r['test_cookie'] ?? false;
    if (typeof cookie !== 'boolean') fields[`${at}.test_cookie`] = 'must be a boolean';
    return { method, path: typeof path === 'string' ? path : '', value: Number(value), test_cookie: cookie === true };
  });
  const list = (key: 'blacklists' | 'whitelists', field: string) =>
    [...new Set(array(body, key, limits.lists, fields).map((raw, i) => network(item(raw)[field], `${key}[${String(i)}].${field}`, fields) ?? ''))];
  const blacklists = list('blacklists', 'blacklist_data');
  const whitelists = list('whitelists', 'whitelist_data');
  const settings = settingsOf(body, fields);
  const tls = tlsOf(body, fields);
  if (Object.keys(fields).length > 0) throw invalid('invalid resource', fields);
  return { name, aliases, origins, rules, blacklists, whitelists, settings, tls };
}
