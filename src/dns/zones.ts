// Zone use cases: create (with the service's apex NS), read, update SOA values and meta, list,
// enable/disable, delete.
import type { Principal } from '../accounts/principal.ts';
import { ApiError, conflict } from '../errors.ts';
import { notifyOtherNodes, type ZoneChange } from '../events/change-feed.ts';
import { abandonZoneWebhooks } from '../events/webhook-outbox.ts';
import { isUniqueViolation } from '../store/errors.ts';
import { upsertRrset, zoneRrsets } from '../store/rrsets.ts';
import { deleteZone as deleteZoneRow, insertZone, listZones as listZoneRows, type ZoneFilter, type ZoneOrder } from '../store/zones.ts';
import { callerZone } from './access.ts';
import { commitZoneChange } from './commit.ts';
import type { DnsContext } from './context.ts';
import { lockNameOwnership, nestingConflict } from './name-ownership.ts';
import { reservedNameProblem } from './reserved-names.ts';
import { rrsetCounts } from './rrset-counts.ts';
import { initialSerial, soaDefaults } from './soa.ts';
import { validateZoneBody, zoneName, type ZoneBody, type ZoneValues } from './zone-input.ts';
import { noRrsets, zoneFields, zoneView } from './views.ts';

/** TTL of the apex NS RRset a new zone gets. */
const apexNsTtl = 86_400;

function storedFields(values: ZoneValues) {
  const { enabled, serial: _serial, ...rest } = values;
  return { ...rest, ...(enabled === undefined ? {} : { enabled: enabled ? 1 : 0 }) };
}

/** 400 for a name that is not a zone here, unless the operator allowed it (EDGEPLANE_ZONE_ALLOW_RESERVED). */
function checkNotReserved(ctx: DnsContext, name: string): void {
  const problem = reservedNameProblem(name);
  if (problem === undefined || ctx.config.zoneAllowReserved.includes(name)) return;
  throw new ApiError(400, 'reserved_name', `${name} cannot be a zone: ${problem}`, { fields: { name: problem } });
}

export async function createZone(ctx: DnsContext, caller: Principal, body: ZoneBody): Promise<{ id: number; warnings: string[] }> {
  const name = zoneName(body.name);
  checkNotReserved(ctx, name);
  const values = await validateZoneBody(body, ctx.config.webhookAllowPrivate);
  const now = new Date().toISOString();
  try {
    const zone = await ctx.store.db.transaction().execute(async (tx) => {
      await lockNameOwnership(tx, ctx.store.engine);
      const nesting = await nestingConflict(tx, caller.accountId, name);
      if (nesting !== undefined) {
        throw new ApiError(409, 'owned_by_another_account', `${name} is ${nesting.relation} ${nesting.zone}, a zone of another account: a name has one owner`);
      }
      const row = await insertZone(tx, {
        account_id: caller.accountId,
        name,
        contact: values.contact ?? `hostmaster.${name}`,
        primary_server: values.primary_server ?? ctx.config.nameservers[0] ?? `ns1.${name}`,
        serial: values.serial ?? initialSerial(),
        refresh: values.refresh ?? soaDefaults.refresh,
        retry: values.retry ?? soaDefaults.retry,
        expiry: values.expiry ?? soaDefaults.expiry,
        nx_ttl: values.nx_ttl ?? soaDefaults.nx_ttl,
        enabled: values.enabled === false ? 0 : 1,
        dnssec_enabled: 0,
        meta: values.meta ?? '{}',
        created_at: now,
        updated_at: now,
      });
      await upsertRrset(
        tx,
        ctx.store.engine,
        row.id,
        {
          name,
          type: 'NS',
          ttl: apexNsTtl,
          meta: '{}',
          pickers: null,
          healthcheck: 0,
          records: ctx.config.nameservers.map((ns) => ({ content: JSON.stringify([ns]), enabled: 1, meta: '{}' })),
        },
        now,
        undefined,
      );
      const change: ZoneChange = { zoneId: row.id, zone: name, serial: row.serial, version: row.version, deleted: false };
      await notifyOtherNodes(tx, ctx.store.engine, change, ctx.changes.origin);
      return change;
    });
    await ctx.changes.publish(zone);
    return { id: zone.zoneId, warnings: [] };
  } catch (e) {
    // The name exists in some account (or two creators raced): the unique index decides.
    if (isUniqueViolation(e)) throw conflict(`zone ${name} already exists`);
    throw e;
  }
}

export async function readZone(ctx: DnsContext, caller: Principal, pathName: string) {
  const zone = await callerZone(ctx.store.db, caller, pathName);
  const [rrsets, counts] = await Promise.all([zoneRrsets(ctx.store.db, zone.id), rrsetCounts(ctx.store.db, [zone.id])]);
  return zoneView(zone, rrsets, counts.get(zone.id) ?? noRrsets, ctx.config.compat);
}

export async function updateZone(ctx: DnsContext, caller: Principal, pathName: string, body: ZoneBody): Promise<{ warnings?: string[] }> {
  const zone = await callerZone(ctx.store.db, caller, pathName);
  const values = await validateZoneBody(body, ctx.config.webhookAllowPrivate);
  const { serial } = await commitZoneChange(ctx, zone.id, async () => ({
    result: undefined,
    zoneFields: storedFields(values),
    requestedSerial: values.serial,
  }));
  if (values.serial !== undefined && serial !== values.serial) {
    return { warnings: [`serial ${values.serial} is not later than the zone's next serial; ${serial} was used`] };
  }
  return {};
}

export async function setZoneEnabled(ctx: DnsContext, caller: Principal, pathName: string, enabled: boolean): Promise<void> {
  const zone = await callerZone(ctx.store.db, caller, pathName);
  await commitZoneChange(ctx, zone.id, async () => ({ result: undefined, zoneFields: { enabled: enabled ? 1 : 0 } }));
}

export async function deleteZone(ctx: DnsContext, caller: Principal, pathName: string): Promise<void> {
  const zone = await callerZone(ctx.store.db, caller, pathName);
  const change = await ctx.store.db.transaction().execute(async (tx) => {
    await abandonZoneWebhooks(tx, zone.id, new Date().toISOString());
    const version = await deleteZoneRow(tx, zone.id);
    const deleted: ZoneChange = { zoneId: zone.id, zone: zone.name, serial: 0, version, deleted: true };
    await notifyOtherNodes(tx, ctx.store.engine, deleted, ctx.changes.origin);
    return deleted;
  });
  await ctx.changes.publish(change);
}

export interface ZoneListQuery {
  offset: number;
  limit: number | undefined;
  orderBy: ZoneOrder;
  direction: 'asc' | 'desc';
  filter: Omit<ZoneFilter, 'accountId'>;
}

export async function listZones(ctx: DnsContext, caller: Principal, query: ZoneListQuery) {
  const { zones, total } = await listZoneRows(ctx.store.db, { ...query.filter, accountId: caller.accountId }, query);
  const counts = await rrsetCounts(ctx.store.db, zones.map((z) => z.id));
  return {
    zones: zones.map((z) => ({ ...zoneFields(z), rrsets_amount: counts.get(z.id) ?? noRrsets })),
    total_amount: total,
  };
}
