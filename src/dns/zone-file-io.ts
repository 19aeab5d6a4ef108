// Zone export to and import from BIND zone files. Export writes what is served (enabled records);
// pickers and meta have no zone-file form and are not exported. Import creates the RRsets that do
// not exist yet, in one change of the zone, and reports every entry it skipped and why.
import type { Principal } from '../accounts/principal.ts';
import { ApiError } from '../errors.ts';
import { writeRrsets, zoneRrsets, type RrsetWrite } from '../store/rrsets.ts';
import { callerZone } from './access.ts';
import { commitZoneChange } from './commit.ts';
import type { DnsContext } from './context.ts';
import { recordType } from './rrtypes/index.ts';
import { ContentError, type ContentValue } from './rrtypes/record-type.ts';
import { checkNeighbours } from './neighbours.ts';
import { contactRname } from './soa.ts';
import { parseJson, rrsetView } from './views.ts';
import { parseZoneFile, type ZoneEntry } from './zonefile/parse.ts';
import { writeZoneFile } from './zonefile/write.ts';

export async function exportZone(ctx: DnsContext, caller: Principal, zonePath: string): Promise<{ raw_zone: string }> {
  const zone = await callerZone(ctx.store.db, caller, zonePath);
  const rrsets = await zoneRrsets(ctx.store.db, zone.id);
  const raw = writeZoneFile({
    name: zone.name,
    ttl: zone.nx_ttl,
    soa: {
      primary_server: zone.primary_server,
      contact: contactRname(zone.contact),
      serial: zone.serial,
      refresh: zone.refresh,
      retry: zone.retry,
      expiry: zone.expiry,
      nx_ttl: zone.nx_ttl,
      ttl: zone.nx_ttl,
    },
    rrsets: rrsets.map((r) => {
      const type = recordType(r.type);
      return {
        name: r.name,
        type: r.type,
        ttl: r.ttl,
        rdata: type === undefined ? [] : r.records.filter((rec) => rec.enabled === 1).map((rec) => type.toText(parseJson<ContentValue[]>(rec.content))),
      };
    }),
  });
  return { raw_zone: raw };
}

export interface ImportSkip {
  line: number;
  name?: string;
  type?: string;
  reason: string;
}

export interface ImportResult {
  created: { name: string; type: string; records: number }[];
  skipped: ImportSkip[];
  /** Records of the file not imported (a skipped RRset counts each of its records). */
  skippedRecords: number;
}

export async function importZone(ctx: DnsContext, caller: Principal, zonePath: string, text: string): Promise<ImportResult> {
  const zone = await callerZone(ctx.store.db, caller, zonePath);
  const parsed = parseZoneFile(text, zone.name);
  const skipped: ImportSkip[] = parsed.errors.map((e) => ({ line: e.line, reason: e.message }));
  let skippedRecords = skipped.length;
  const skip = (entry: ImportSkip, records: number) => {
    skipped.push(entry);
    skippedRecords += records;
  };
  if (parsed.soa) skip({ line: parsed.soa.line, name: parsed.soa.name, type: 'SOA', reason: 'SOA values are the zone\'s fields; change them with PUT /dns/v2/zones/{name}' }, 1);

  const groups = Map.groupBy(parsed.records, (e) => `${e.name} ${e.type}`);
  const candidates: { name: string; type: string; line: number; ttl: number; records: ContentValue[][] }[] = [];
  for (const entries of groups.values()) {
    const first = entries[0] as ZoneEntry;
    const type = recordType(first.type);
    if (type === undefined) {
      skip({ line: first.line, name: first.name, type: first.type, reason: 'unsupported record type' }, entries.length);
      continue;
    }
    if (type.type === 'NS' && first.name === zone.name) {
      skip({ line: first.line, name: first.name, type: 'NS', reason: 'the apex NS is this service\'s own name servers' }, entries.length);
      continue;
    }
    const records: ContentValue[][] = [];
    for (const entry of entries) {
      try {
        records.push(type.parse(type.fromText(entry.rdata, entry.origin), zone.name));
      } catch (e) {
        if (!(e instanceof ContentError)) throw e;
        skip({ line: entry.line, name: entry.name, type: type.type, reason: e.message }, 1);
      }
    }
    if (records.length > 0) candidates.push({ name: first.name, type: type.type, line: first.line, ttl: Math.min(...entries.map((e) => e.ttl)), records });
  }

  // Checked against the RRsets there (read once, with the zone locked) and those planned before,
  // then written together: one statement on PostgreSQL however many (store/rrsets.ts writeRrsets).
  const { result } = await commitZoneChange(ctx, zone.id, async (tx, _zone, here) => {
    const typesAt = new Map<string, string[]>();
    for (const r of here) typesAt.set(r.name, [...(typesAt.get(r.name) ?? []), r.type]);
    const created: ImportResult['created'] = [];
    const writes: RrsetWrite[] = [];
    // NS before DS (a DS needs its delegation in place), CNAMEs last (a name's other data is in
    // place first, so a conflicting CNAME is the one skipped).
    const rank = (type: string) => (type === 'NS' ? 0 : type === 'DS' ? 2 : type === 'CNAME' ? 3 : 1);
    candidates.sort((a, b) => rank(a.type) - rank(b.type));
    for (const c of candidates) {
      const type = recordType(c.type);
      if (type === undefined) continue;
      const types = typesAt.get(c.name) ?? [];
      if (types.includes(c.type)) {
        skip({ line: c.line, name: c.name, type: c.type, reason: 'the RRset already exists' }, c.records.length);
        continue;
      }
      try {
        checkNeighbours({ zone, name: c.name, type }, types);
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        skip({ line: c.line, name: c.name, type: c.type, reason: e.message }, c.records.length);
        continue;
      }
      const unique = [...new Map(c.records.map((r) => [JSON.stringify(r), r])).values()];
      const records = unique.map((r) => ({ content: JSON.stringify(r), enabled: 1, meta: '{}' }));
      writes.push({ upsert: { name: c.name, type: c.type, ttl: c.ttl, meta: '{}', pickers: null, healthcheck: 0, records }, existing: undefined });
      typesAt.set(c.name, [...types, c.type]);
      created.push({ name: c.name, type: c.type, records: unique.length });
    }
    const stored = (await writeRrsets(tx, ctx.store.engine, zone.id, writes, new Date().toISOString())).filter((r) => r !== undefined);
    const changedNames = [...new Set(created.map((c) => c.name))];
    const changed = new Set(changedNames);
    return {
      result: created,
      unchanged: created.length === 0,
      changedNames,
      rrsetsAfter: [...here.filter((r) => changed.has(r.name)), ...stored],
      rrsetChanges: { created: stored.map((r) => rrsetView(r, ctx.config.compat)), updated: [], deleted: [] },
    };
  }, { names: [...new Set(candidates.map((c) => c.name))] });
  skipped.sort((a, b) => a.line - b.line);
  return { created: result, skipped, skippedRecords };
}
