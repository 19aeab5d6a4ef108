// GET /dns/v2/monitor/metrics: the caller's account's zones as Prometheus text, as the provider
// serves its monitoring metrics there (text, series labelled with client_id and zone_name). The
// series:
// - `dns_zone_queries_total`: queries answered per zone over the statistics the store keeps
//   (dns/server/query-stats.ts), every zone of the account listed (0 when none);
// - `healthcheck_state`, the provider's one documented metric: 1 up, 0 down, for each record a
//   health check probes (dns/health/), read from the state the nodes agree on in the store. The
//   provider's labels, an RRset's check standing for its monitor, and `address` beside them: here a
//   check probes each record of the RRset and each has its own state.
// None of another account's. Formatted by prom-client, which escapes label values.
import { Counter, Gauge, Registry } from 'prom-client';
import type { Principal } from '../accounts/principal.ts';
import { failoverStates } from '../store/failover.ts';
import { queryTotalsByZone } from '../store/query-stats.ts';
import { healthCheckedRrsets } from '../store/rrsets.ts';
import type { DnsContext } from './context.ts';
import { checkOf, probedRecords, type Check } from './health/failover.ts';
import { parseJson } from './views.ts';

export interface MonitorMetrics {
  contentType: string;
  text: string;
}

const healthLabels = ['client_id', 'monitor_id', 'monitor_locations', 'monitor_name', 'monitor_type', 'rrset_name', 'rrset_type', 'zone_name', 'address'] as const;

/** The check an RRset's meta describes, or none when it has none that runs (a regexp stored before the API checked them for linear-time matching). */
function runnableCheck(meta: string): Check | undefined {
  try {
    return checkOf(parseJson<Record<string, unknown>>(meta));
  } catch {
    return undefined;
  }
}

/** `zoneNames`, when not empty, keeps those of the account's zones (lower case, no trailing dot). */
export async function monitorMetrics(ctx: DnsContext, caller: Principal, zoneNames: readonly string[]): Promise<MonitorMetrics> {
  const { db } = ctx.store;
  const wanted = new Set(zoneNames.map((n) => n.toLowerCase().replace(/\.$/, '')));
  const registry = new Registry();
  const queries = new Counter({
    name: 'dns_zone_queries_total',
    help: 'DNS queries answered for the zone over the statistics kept (EDGEPLANE_STATS_RETENTION_DAYS); lower when old minutes expire',
    labelNames: ['client_id', 'zone_name'] as const,
    registers: [registry],
  });
  const health = new Gauge({
    name: 'healthcheck_state',
    help: 'The state of a health-checked record as the DNS nodes agree on it: 1 up (answered), 0 down; a record not checked yet counts as up',
    labelNames: healthLabels,
    registers: [registry],
  });
  const client_id = String(caller.accountId);
  const zoneNamesById = new Map<number, string>();
  for (const { id, name, count } of await queryTotalsByZone(db, caller.accountId)) {
    if (wanted.size > 0 && !wanted.has(name)) continue;
    zoneNamesById.set(id, name);
    queries.inc({ client_id, zone_name: name }, count);
  }
  const rrsets = (await healthCheckedRrsets(db, caller.accountId)).filter((r) => zoneNamesById.has(r.zone_id));
  const states = new Map((await failoverStates(db, rrsets.map((r) => r.id))).map((s) => [`${String(s.rrset_id)}|${s.address}`, s.up]));
  for (const rrset of rrsets) {
    const check = runnableCheck(rrset.meta);
    if (check === undefined) continue;
    const series = {
      client_id,
      monitor_id: String(rrset.id),
      monitor_locations: '',
      monitor_name: `${rrset.name} ${rrset.type}`,
      monitor_type: check.protocol.toLowerCase(),
      rrset_name: rrset.name,
      rrset_type: rrset.type,
      zone_name: zoneNamesById.get(rrset.zone_id) ?? '',
    };
    for (const { address } of probedRecords(rrset.records)) health.set({ ...series, address }, states.get(`${String(rrset.id)}|${address}`) ?? 1);
  }
  return { contentType: registry.contentType, text: await registry.metrics() };
}
