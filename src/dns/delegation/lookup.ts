// The provider's lookup: the records the operator's resolver finds for a name, of one type or of
// the common ones, one entry per RRset with each record's RDATA in presentation form. A caller names
// the question only: never the server (a `request_server` other than the default is refused), never
// a type outside the list below (no ANY, no zone transfers), never a special-use name.
import { invalid } from '../../errors.ts';
import type { Reply } from '../client/message.ts';
import { presentationName, rdataFields } from '../client/rdata.ts';
import { requireResolver } from '../client/resolver.ts';
import type { DnsContext } from '../context.ts';
import { specialUseName } from '../reserved-names.ts';
import { typeCode } from '../wire/type-codes.ts';
import { queryName } from './query-name.ts';

export const lookupTypes: ReadonlyMap<string, number> = new Map([
  ['A', typeCode.a],
  ['AAAA', typeCode.aaaa],
  ['CAA', typeCode.caa],
  ['CNAME', typeCode.cname],
  ['DS', typeCode.ds],
  ['MX', typeCode.mx],
  ['NS', typeCode.ns],
  ['PTR', typeCode.ptr],
  ['SOA', typeCode.soa],
  ['SRV', typeCode.srv],
  ['TXT', typeCode.txt],
]);
const typeNames = new Map([...lookupTypes].map(([name, code]) => [code, name]));
/** Asked when the caller names no type: five queries at once, at most. */
const defaultTypes = ['A', 'AAAA', 'MX', 'NS', 'TXT'];
/** Records answered in all: a name with thousands of TXT records is cut here. */
const maxRecords = 100;

export interface LookupEntry {
  name: string;
  type: string;
  ttl: number;
  content: string[];
}

export interface LookupQuery {
  name: string;
  type?: string | undefined;
  request_server?: string | undefined;
}

function requestedTypes(type: string | undefined): string[] {
  if (type === undefined || type.trim() === '') return defaultTypes;
  const name = type.trim().toUpperCase();
  if (!lookupTypes.has(name)) {
    const message = `type must be one of ${[...lookupTypes.keys()].join(', ')}`;
    throw invalid(message, { type: message });
  }
  return [name];
}

/** The answer section's RRsets, in the order they came (a CNAME before its target's records). */
function answerEntries(reply: Reply): LookupEntry[] {
  const entries = new Map<string, LookupEntry>();
  for (const record of reply.answers) {
    // A public name's CNAME may lead into a special-use name only the operator's resolver answers.
    if (specialUseName(record.name) !== undefined) continue;
    const type = typeNames.get(record.type) ?? `TYPE${String(record.type)}`;
    const key = `${record.name} ${type}`;
    const entry = entries.get(key) ?? { name: presentationName(record.name), type, ttl: record.ttl, content: [] };
    entry.ttl = Math.min(entry.ttl, record.ttl);
    entry.content.push(rdataFields(reply, record).join(' '));
    entries.set(key, entry);
  }
  return [...entries.values()];
}

export async function lookup(ctx: DnsContext, query: LookupQuery): Promise<LookupEntry[]> {
  if (query.request_server !== undefined && query.request_server !== '') {
    const message = 'this service asks only the resolver its operator configured: leave request_server out';
    throw invalid(message, { request_server: message });
  }
  const name = queryName(query.name, 'name');
  const types = requestedTypes(query.type);
  const resolver = requireResolver(ctx.resolver);
  const replies = await Promise.all(types.map((type) => resolver.query(name, lookupTypes.get(type) ?? 0)));
  // The same CNAME comes back with every type asked: each RRset once.
  const seen = new Set<string>();
  const entries: LookupEntry[] = [];
  let records = 0;
  for (const entry of replies.flatMap(answerEntries)) {
    const key = `${entry.name} ${entry.type}`;
    if (seen.has(key) || records >= maxRecords) continue;
    seen.add(key);
    entry.content = entry.content.slice(0, maxRecords - records);
    records += entry.content.length;
    entries.push(entry);
  }
  return entries;
}
