// GET /dns/v2/monitor/metrics: the caller's account's zones as Prometheus text, as the provider
// serves its monitoring metrics there (text, series labelled with client_id and zone_name). The
// series: queries answered per zone over the statistics the store keeps (dns/server/query-stats.ts),
// every zone of the account listed (0 when none), none of another account's. Formatted by
// prom-client, which escapes label values.
import { Counter, Registry } from 'prom-client';
import type { Principal } from '../accounts/principal.ts';
import { queryTotalsByZone } from '../store/query-stats.ts';
import type { DnsContext } from './context.ts';

export interface MonitorMetrics {
  contentType: string;
  text: string;
}

/** `zoneNames`, when not empty, keeps those of the account's zones (lower case, no trailing dot). */
export async function monitorMetrics(ctx: DnsContext, caller: Principal, zoneNames: readonly string[]): Promise<MonitorMetrics> {
  const wanted = new Set(zoneNames.map((n) => n.toLowerCase().replace(/\.$/, '')));
  const registry = new Registry();
  const queries = new Counter({
    name: 'dns_zone_queries_total',
    help: 'DNS queries answered for the zone over the statistics kept (EDGEPLANE_STATS_RETENTION_DAYS); lower when old minutes expire',
    labelNames: ['client_id', 'zone_name'] as const,
    registers: [registry],
  });
  const client_id = String(caller.accountId);
  for (const { name, count } of await queryTotalsByZone(ctx.store.db, caller.accountId)) {
    if (wanted.size === 0 || wanted.has(name)) queries.inc({ client_id, zone_name: name }, count);
  }
  return { contentType: registry.contentType, text: await registry.metrics() };
}
