// A zone's RRsets as the DNS server loads them (dns/server/load.ts), page by page, each page whole
// owner names in name order, so a reader of a large zone never holds all its rows at once. Only the
// columns serving reads: a zone load reads every row of the zone, and on SQLite most of a
// 1,000,000-record load went to reading rows, node:sqlite building an object per row field by
// field. There the rows are read as arrays (setReturnArrays) on the store's own connection, taken
// from Kysely for each page so no other query runs on it meanwhile (nor inside another's
// transaction): the rows read twice as fast (docs/dns-server.md, "Memory").
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Db } from './database.ts';
import { inListMax } from './rrset-records.ts';
import type { RecordRow, RrsetRow } from './rrsets.ts';
import { sqliteOf } from './sqlite.ts';

/** What serving an RRset reads of it. */
export type ServedRrsetRow = Pick<RrsetRow, 'id' | 'name' | 'type' | 'ttl' | 'pickers'> & { records: ServedRecordRow[] };
export type ServedRecordRow = Pick<RecordRow, 'content' | 'enabled' | 'meta'>;

type RrsetHead = Omit<ServedRrsetRow, 'records'>;
type RecordOf = ServedRecordRow & { rrset_id: number };

/** Reads a page of RRsets after a name (every one from the start without), and the records of some. */
interface PageReader {
  rrsets(after: string | undefined, size: number): Promise<RrsetHead[]>;
  /** In RRset id order, then position. */
  records(ids: readonly number[]): Promise<RecordOf[]>;
}

export async function* servedRrsetPages(db: Db, zoneId: number, size = 1000): AsyncGenerator<ServedRrsetRow[]> {
  const sqlite = sqliteOf(db);
  const reader = sqlite === undefined ? kyselyReader(db, zoneId) : sqliteReader(db, sqlite, zoneId);
  let after: string | undefined;
  for (;;) {
    const rows = await reader.rrsets(after, size);
    const last = rows.at(-1);
    if (last === undefined) return;
    // A full page may end inside a name: that name starts the next page.
    const whole = rows.length < size ? rows : rows.filter((r) => r.name !== last.name);
    if (whole.length === 0) throw new Error(`more than ${String(size)} RRsets at ${last.name}`);
    const byRrset = Map.groupBy(await reader.records(whole.map((r) => r.id)), (r) => r.rrset_id);
    yield whole.map((r) => ({ id: r.id, name: r.name, type: r.type, ttl: r.ttl, pickers: r.pickers, records: byRrset.get(r.id) ?? [] }));
    if (rows.length < size) return;
    after = whole.at(-1)?.name;
  }
}

function kyselyReader(db: Db, zoneId: number): PageReader {
  return {
    rrsets: (after, size) => {
      const query = db.selectFrom('rrsets').select(['id', 'name', 'type', 'ttl', 'pickers']).where('zone_id', '=', zoneId);
      return (after === undefined ? query : query.where('name', '>', after)).orderBy('name').orderBy('type').limit(size).execute();
    },
    records: async (ids) => {
      const records: RecordOf[] = [];
      for (let i = 0; i < ids.length; i += inListMax) {
        const some = ids.slice(i, i + inListMax);
        records.push(...(await db.selectFrom('records').select(['rrset_id', 'content', 'enabled', 'meta']).where('rrset_id', 'in', some).orderBy('rrset_id').orderBy('position').execute()));
      }
      return records;
    },
  };
}

/** The statements of one SQLite database, prepared once; rows as arrays, columns as the readers below take them. */
const statementsOf = new WeakMap<DatabaseSync, { first: StatementSync; after: StatementSync; records: StatementSync }>();

function statements(database: DatabaseSync) {
  let made = statementsOf.get(database);
  if (made === undefined) {
    const head = 'select id, name, type, ttl, pickers from rrsets where zone_id = ?';
    made = {
      first: database.prepare(`${head} order by name, type limit ?`),
      after: database.prepare(`${head} and name > ? order by name, type limit ?`),
      // One statement for any number of ids (an IN list would need one per count).
      records: database.prepare('select rrset_id, content, enabled, meta from records where rrset_id in (select value from json_each(?)) order by rrset_id, position'),
    };
    for (const statement of Object.values(made)) statement.setReturnArrays(true);
    statementsOf.set(database, made);
  }
  return made;
}

function sqliteReader(db: Db, database: DatabaseSync, zoneId: number): PageReader {
  const { first, after: next, records } = statements(database);
  // The connection is Kysely's one: held for the read, so it runs between other queries, never inside one's transaction.
  const held = <T>(read: () => T) => db.connection().execute(() => Promise.resolve(read()));
  return {
    rrsets: (after, size) =>
      held(() =>
        (after === undefined ? first.all(zoneId, size) : next.all(zoneId, after, size)).map((row) => {
          const [id, name, type, ttl, pickers] = row as unknown as [number, string, string, number, string | null];
          return { id, name, type, ttl, pickers };
        }),
      ),
    records: (ids) =>
      held(() =>
        records.all(JSON.stringify(ids)).map((row) => {
          const [rrset_id, content, enabled, meta] = row as unknown as [number, string, number, string];
          return { rrset_id, content, enabled, meta };
        }),
      ),
  };
}
