// The protected resources every scenario uses, as plain data: edgeplane gets them through its API
// (edgeplane.ts turns them into request bodies) and nginx as server blocks (nginx.ts), so the two
// proxies enforce the same rules from one definition.

export type OriginMode = 'primary' | 'backup';

export interface BenchOrigin {
  port: number;
  weight: number;
  mode: OriginMode;
}

export interface BenchRule {
  /** Requests a second per client address, with a burst of as many (edgeplane's rule, nginx's `burst … nodelay`). */
  value: number;
}

export interface BenchResource {
  name: string;
  origins: BenchOrigin[];
  /** Addresses and CIDRs that skip every other check. */
  whitelist: string[];
  /** Addresses and CIDRs refused with 403. */
  blacklist: string[];
  /** 0: off; 1: every country passes except `countries`. */
  geoMode: 0 | 1;
  countries: string[];
  /** One rule for any method and any path (`*`, `*`), or none. */
  rule: BenchRule | undefined;
  /**
   * Connections one client address may hold (nginx's `limit_conn`; edgeplane's is the operator's
   * EDGEPLANE_PROXY_MAX_CONNECTIONS_PER_CLIENT, set by flood-many.ts); undefined: no such limit.
   */
  connectionsPerClient?: number;
}

/** Where the shared origin listens: two primaries and a backup, all answering the same `return 200`. */
export interface OriginPorts {
  primary: number;
  secondary: number;
  backup: number;
}

export interface BenchResources {
  /** Scenarios 1, 2 and 4: one origin, no rule. */
  plain: BenchResource;
  /** Scenario 3: every rule on, none refusing the load generator (127.0.0.1). */
  rules: BenchResource;
  /** Scenario 5: a rate rule the flood trips and the legitimate client stays under. */
  flood: BenchResource;
}

export const names = { plain: 'plain.bench.example', rules: 'rules.bench.example', flood: 'flood.bench.example' };
export const benchNames = Object.values(names);

/** Listed countries are refused (geo mode 1); loopback is in none of them. */
export const refusedCountries = ['CN', 'RU', 'KP', 'IR', 'SY'];

/**
 * Loopback addresses the checks before measuring send from (check.ts): one blacklisted, one both
 * blacklisted and whitelisted (the whitelist wins). The load generator's 127.0.0.1 is in neither list.
 */
export const checkAddresses = { blacklisted: '127.0.0.3', whitelisted: '127.0.0.4' };

/** The whitelist: documentation ranges, and one loopback address for the check. */
export const whitelist = ['203.0.113.0/24', '198.51.100.7', '192.0.2.0/25', '2001:db8:ffff::/48', checkAddresses.whitelisted];

/**
 * `count` distinct public CIDRs and single addresses, none in 127.0.0.0/8: every 4th an address, every
 * 10th an IPv6 /48, the rest IPv4 /24s. Generated, not random, so every run and both proxies get the same list.
 */
export function blacklist(count: number): string[] {
  const entries: string[] = [];
  for (let i = 0; i < count; i++) {
    // First two octets unique per entry (11.0 … 14.255 for 1,000), so entries never overlap.
    const a = 11 + Math.floor(i / 256);
    const b = i % 256;
    const c = (i * 37) % 256;
    if (i % 10 === 9) entries.push(`2001:db8:${i.toString(16)}::/48`);
    else if (i % 4 === 3) entries.push(`${a}.${b}.${c}.1`);
    else entries.push(`${a}.${b}.${c}.0/24`);
  }
  return entries;
}

export function benchResources(origins: OriginPorts, floodRate: number, blacklistSize: number): BenchResources {
  const single: BenchOrigin[] = [{ port: origins.primary, weight: 1, mode: 'primary' }];
  return {
    plain: { name: names.plain, origins: single, whitelist: [], blacklist: [], geoMode: 0, countries: [], rule: undefined },
    rules: {
      name: names.rules,
      origins: [
        { port: origins.primary, weight: 3, mode: 'primary' },
        { port: origins.secondary, weight: 1, mode: 'primary' },
        { port: origins.backup, weight: 1, mode: 'backup' },
      ],
      whitelist,
      blacklist: [...blacklist(blacklistSize - 2), checkAddresses.blacklisted, checkAddresses.whitelisted],
      geoMode: 1,
      countries: refusedCountries,
      // The highest value the API takes: never trips at the rates one core reaches.
      rule: { value: 100_000 },
    },
    flood: { name: names.flood, origins: single, whitelist: [], blacklist: [], geoMode: 0, countries: [], rule: { value: floodRate } },
  };
}

export function allResources(resources: BenchResources): BenchResource[] {
  return [resources.plain, resources.rules, resources.flood];
}
