// An RRset's health check log (GET /dns/v2/zones/{zone}/{rrset}/{type}/failover/log): the changes of
// its records' states, newest first, as the DNS nodes agreed on them (store/failover.ts).
import type { Principal } from '../accounts/principal.ts';
import { failoverLog } from '../store/failover.ts';
import { findRrset } from '../store/rrsets.ts';
import { recordNotFound } from './access.ts';
import type { DnsContext } from './context.ts';
import { rrsetTarget } from './rrsets.ts';

export interface FailoverLogPage {
  log: { action: string; address: string; time: number }[];
  total_amount: number;
}

export async function rrsetFailoverLog(
  ctx: DnsContext,
  caller: Principal,
  path: { zone: string; name: string; type: string },
  page: { offset: number; limit: number },
): Promise<FailoverLogPage> {
  const t = await rrsetTarget(ctx, caller, path.zone, path.name, path.type);
  const row = await findRrset(ctx.store.db, t.zone.id, t.name, t.type.type);
  if (row === undefined) throw recordNotFound();
  const { entries, total } = await failoverLog(ctx.store.db, row.id, page.offset, page.limit);
  return { log: entries.map((e) => ({ action: e.action, address: e.address, time: e.time })), total_amount: total };
}
