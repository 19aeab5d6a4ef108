// One committed change of a zone: in one transaction the change itself, the serial and version
// bump, its zone journal entry (journal/journal-change.ts), the webhook outbox row and the NOTIFY
// for other nodes; after the commit, the in-process change feed (which never fails the request:
// the change is committed by then).
//
// A change that declares its names up front gets their RRsets, read once after the zone is locked;
// when it also says what is at those names after it (`rrsetsAfter`), the journal takes both from
// there and the DNS threads of this process are handed the rows with the change, so nothing is read
// twice (docs/dns-server.md, "Changes and convergence").
import { enqueueWebhook } from '../events/webhook-outbox.ts';
import { changeNotice, type ZoneChange } from '../events/change-feed.ts';
import type { Db } from '../store/database.ts';
import type { RrsetWithRecords } from '../store/rrsets.ts';
import { lockZone, writeZoneChange, type ZoneChangeWrite } from '../store/zone-change.ts';
import type { ZoneRow } from '../store/zones.ts';
import { zoneNotFound } from './access.ts';
import type { DnsContext } from './context.ts';
import { journalWrite } from './journal/journal-change.ts';
import { nextSerial } from './soa.ts';
import { parseJson } from './views.ts';

export interface RrsetChanges {
  created: unknown[];
  updated: unknown[];
  deleted: unknown[];
}

export interface ChangeOutcome<T> {
  result: T;
  /** New zone field values (JSON meta included) to store with the serial bump. */
  zoneFields?: Partial<Pick<ZoneRow, 'contact' | 'primary_server' | 'enabled' | 'refresh' | 'retry' | 'expiry' | 'nx_ttl' | 'meta' | 'dnssec_enabled'>>;
  requestedSerial?: number | undefined;
  /** RRset changes for the zone's webhook; nothing is sent when all lists are empty. */
  rrsetChanges?: RrsetChanges;
  /** The work changed nothing after all: no serial bump, no event. */
  unchanged?: boolean;
  /**
   * Owner names whose RRsets changed; absent when only zone fields changed (no RRset may change
   * then). Each must be among the names the change declared up front, or the journal is cleared.
   */
  changedNames?: string[];
  /**
   * Every RRset at `changedNames` after the change, with its records, as written: the journal and
   * the DNS threads take them from here instead of reading them back. Absent: they read the store.
   */
  rrsetsAfter?: RrsetWithRecords[];
  /**
   * The changes this outcome stands for (RRset writes committed together, rrset-batch.ts): the
   * serial steps once for each, as it would have committed alone. 1 when absent.
   */
  changes?: number;
}

export interface ChangeOptions {
  /** The owner names whose RRsets the work may change: read before it, for the work and the zone journal. */
  names?: readonly string[];
  /**
   * Called once the change is committed, while the DNS threads may still be taking it: the RRset
   * batch queue (rrset-batch.ts) starts its next transaction then, so that one overlaps this hand-over.
   */
  committed?: () => void;
}

export async function commitZoneChange<T>(
  ctx: DnsContext,
  /** The zone's id, or its name (RRset writes lock the zone without reading it first); 404 when there is none. */
  which: number | { name: string },
  /** `here`: the RRsets (with records) at the declared names before the change; empty without names. */
  work: (tx: Db, zone: ZoneRow, here: RrsetWithRecords[]) => Promise<ChangeOutcome<T>>,
  options: ChangeOptions = {},
): Promise<{ result: T; serial: number | undefined }> {
  const { store } = ctx;
  const committed = await store.db.transaction().execute(async (tx) => {
    const locked = await lockZone(tx, store.engine, typeof which === 'number' ? { id: which } : which, options.names ?? []);
    if (locked === undefined) throw zoneNotFound();
    const { zone, here } = locked;
    const outcome = await work(tx, zone, here);
    if (outcome.unchanged === true) return { result: outcome.result, change: undefined, webhook: undefined };
    const change = await zoneChangeOf(ctx, tx, { zone, here, names: options.names }, outcome);
    if (change.webhook !== undefined) await enqueueWebhook(tx, change.webhook);
    const version = await writeZoneChange(tx, store.engine, change.write);
    return { result: outcome.result, change: told(change, version, outcome.rrsetsAfter), webhook: change.webhook };
  });
  options.committed?.();
  if (committed.change === undefined) return { result: committed.result, serial: undefined };
  await publishChange(ctx, committed.change, committed.webhook !== undefined);
  return { result: committed.result, serial: committed.change.serial };
}

/** What a change found: the zone's row, and the RRsets at the names it declared (`names`) before it. */
export interface FoundZone {
  zone: ZoneRow;
  here: RrsetWithRecords[];
  names: readonly string[] | undefined;
}

/** What a change writes beside its own work, and what it tells once committed (told()). */
export interface ZoneChangeOf {
  write: ZoneChangeWrite;
  /** The change as other nodes hear of it, before its version is known. */
  told: ZoneChange;
  /** The zone's row after the change, but for its version. */
  after: ZoneRow;
  /** The webhook call to queue with it, when the zone has one and RRsets changed. */
  webhook: WebhookCall | undefined;
}

type WebhookCall = Parameters<typeof enqueueWebhook>[1];

/**
 * The zone's new serial and fields, its journal entry (which reads `db` only when the outcome does
 * not say what is at its names after it), the notice and the webhook call of a change with `outcome`.
 */
export async function zoneChangeOf(ctx: DnsContext, db: Db, found: FoundZone, outcome: ChangeOutcome<unknown>): Promise<ZoneChangeOf> {
  const { zone, here, names } = found;
  let serial = nextSerial(zone.serial, outcome.requestedSerial);
  for (let step = 1; step < (outcome.changes ?? 1); step++) serial = nextSerial(serial, undefined);
  const fields = { ...outcome.zoneFields, serial, updated_at: new Date().toISOString() };
  const after = { ...zone, ...fields };
  const changedNames = outcome.changedNames;
  const bounds = { versions: ctx.config.dnsJournalVersions, bytes: ctx.config.dnsJournalBytes };
  const journal =
    bounds.versions < 1
      ? { clear: true as const }
      : await journalWrite(db, {
          zone,
          after,
          before: names === undefined ? undefined : { names: new Set(names), rrsets: here },
          changedNames,
          rrsetsAfter: outcome.rrsetsAfter,
        });
  // The change as other nodes hear of it; its version is the one its own statement takes.
  const told: ZoneChange = { zoneId: zone.id, zone: zone.name, serial, version: 0, previous: changedNames === undefined ? undefined : zone.version, deleted: false, names: changedNames };
  return { write: { zoneId: zone.id, fields, journal, bounds, notice: changeNotice(told, ctx.changes.origin) }, told, after, webhook: webhookCall(zone, outcome) };
}

/** The webhook call a change with `outcome` queues: when the zone (as the change leaves it) has a webhook and RRsets changed. */
export function webhookCall(zone: ZoneRow, outcome: ChangeOutcome<unknown>): WebhookCall | undefined {
  const meta = parseJson<Record<string, unknown>>(outcome.zoneFields?.meta ?? zone.meta);
  const changes = outcome.rrsetChanges;
  const hooked =
    typeof meta['webhook'] === 'string' && meta['webhook'] !== '' && changes !== undefined && changes.created.length + changes.updated.length + changes.deleted.length > 0;
  const method = typeof meta['webhook_method'] === 'string' ? meta['webhook_method'] : 'POST';
  return hooked ? { zoneId: zone.id, url: String(meta['webhook']), method, payload: changes } : undefined;
}

/** The change as committed at `version`, with what it wrote at its names (`rrsetsAfter`) for this process's DNS threads. */
export function told(change: ZoneChangeOf, version: number, rrsetsAfter: RrsetWithRecords[] | undefined): ZoneChange {
  const written = change.told.names === undefined || rrsetsAfter === undefined ? undefined : { zone: { ...change.after, version }, rrsets: rrsetsAfter };
  return { ...change.told, version, written };
}

/** After the commit: the in-process change feed (which never fails the request), and the webhook sender woken when a call was queued. */
export async function publishChange(ctx: DnsContext, change: ZoneChange, webhookQueued: boolean): Promise<void> {
  await ctx.changes.publish(change);
  if (webhookQueued) ctx.wakeWebhooks();
}
