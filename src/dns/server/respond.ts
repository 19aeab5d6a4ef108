// One query in, one response out (or none for what must be dropped): the chain parse → find zone
// → lookup → encode, with EDNS (RFC 6891), the ECS echo (RFC 7871) and truncation.
import { lookup, type LookupOptions, type Sections } from './lookup.ts';
import type { GeoLookup } from '../../geo/geoip.ts';
import { signingEpoch } from '../dnssec/signer.ts';
import { applyPickers } from '../pickers/chain.ts';
import { requester, subnetAddress, type Requester } from '../pickers/requester.ts';
import { typeCode } from '../wire/type-codes.ts';
import type { DnsMetrics } from './metrics.ts';
import { parseQuery, QueryError, type Query } from './query.ts';
import { cacheKey, type CachedAnswer, type ResponseCache } from './response-cache.ts';
import { transferTypes } from './transfer.ts';
import { rcode, ResponseWriter } from './response.ts';
import type { ServedZones } from './served-zones.ts';
import { allRecords, recordCount } from './served-rrset.ts';
import { checkCookies, type CookieSecrets, type CookieVerdict } from './cookies.ts';
import { extendedErrors } from './extended-errors.ts';
import { SigningError } from '../dnssec/signer.ts';

/** The largest UDP answer we send (the DNS flag day 2020 value) and the classic limit without EDNS. */
export const maxUdpPayload = 1232;
const classicUdpPayload = 512;
const classIn = 1;
const classAny = 255;
const ednsClientSubnet = 8;
const nsidOption = 3;

export interface Transport {
  udp: boolean;
  /** The peer's address: the requester when the query has no client subnet. */
  source: string;
  /** This server's identifier (EDGEPLANE_DNS_NSID), sent to queries that ask (RFC 5001). */
  nsid: Buffer | undefined;
  /** DNS COOKIE secrets (cookies.ts); undefined: cookies are not answered. */
  cookies: CookieSecrets | undefined;
}

/**
 * The EDNS options of a reply: the ECS echo with its scope, the NSID when asked for, the COOKIE,
 * the Extended DNS Error of a refusal or failure.
 */
function ednsOptions(query: Query, scope: number, shape: Layout, ede: Buffer | undefined): Buffer {
  const { nsid, cookie } = shape;
  const subnet = query.edns?.clientSubnet;
  const ecs = subnet === undefined ? 0 : 8 + subnet.address.length;
  const named = ecs + (nsid === undefined ? 0 : 4 + nsid.length);
  const options = Buffer.alloc(named + (cookie?.length ?? 0) + (ede?.length ?? 0));
  if (subnet !== undefined) {
    options.writeUInt16BE(ednsClientSubnet, 0);
    options.writeUInt16BE(4 + subnet.address.length, 2);
    options.writeUInt16BE(subnet.family, 4);
    options[6] = subnet.sourcePrefix;
    options[7] = scope;
    subnet.address.copy(options, 8);
  }
  if (nsid !== undefined) {
    options.writeUInt16BE(nsidOption, ecs);
    options.writeUInt16BE(nsid.length, ecs + 2);
    nsid.copy(options, ecs + 4);
  }
  cookie?.copy(options, named);
  ede?.copy(options, named + (cookie?.length ?? 0));
  return options;
}

function headerOnly(message: Buffer, code: number): Buffer | undefined {
  if (message.length < 12) return undefined;
  const writer = new ResponseWriter(12);
  return writer.finish({ id: message.readUInt16BE(0), queryFlags: message.readUInt16BE(2), authoritative: false, truncated: false, rcode: code, counts: [0, 0, 0, 0] });
}

/** Writes the sections; false when answer, authority or required glue does not fit. */
function writeSections(writer: ResponseWriter, sections: Sections, counts: [number, number, number, number]): boolean {
  const lists = [sections.answer, sections.authority, sections.additional];
  for (const [index, list] of lists.entries()) {
    for (const [position, record] of list.entries()) {
      if (writer.record(record)) {
        counts[index + 1] = (counts[index + 1] ?? 0) + 1;
        continue;
      }
      // Optional additional data may be left out; answers, authority and glue may not (RFC 9471).
      return index === 2 && position >= sections.requiredAdditional;
    }
  }
  return true;
}

interface Layout {
  /** Largest message for this transport and client. */
  limit: number;
  /** Room kept for the OPT record (with the ECS echo, whose length does not depend on the scope, and the NSID). */
  reserved: number;
  /** The NSID to send, when the query asked and this server has one. */
  nsid: Buffer | undefined;
  /** The COOKIE option to send back, when the query had one; and what its server cookie was. */
  cookie: Buffer | undefined;
  cookieVerdict: CookieVerdict | undefined;
}

function layout(query: Query, transport: Transport): Layout {
  const edns = query.edns;
  const limit = transport.udp ? (edns ? Math.max(classicUdpPayload, Math.min(edns.udpSize, maxUdpPayload)) : classicUdpPayload) : 65535;
  const subnet = edns?.clientSubnet;
  const nsid = edns?.nsid === true ? transport.nsid : undefined;
  const sent = edns?.cookie;
  const cookies = sent === undefined || transport.cookies === undefined ? undefined : checkCookies(transport.cookies, sent.client, sent.server, transport.source, Math.floor(Date.now() / 1000));
  const cookie = cookies?.option;
  const reserved = edns ? 11 + (subnet ? 8 + subnet.address.length : 0) + (nsid ? 4 + nsid.length : 0) + (cookie?.length ?? 0) : 0;
  return { limit, reserved, nsid, cookie, cookieVerdict: cookies?.verdict };
}

/**
 * Lays the sections out after the question; when they do not fit, the answer is the question alone
 * with TC. `zone`: the answering zone's id, 0 for none; `ede`: the Extended DNS Error it carries.
 */
function compose(query: Query, sections: Sections, shape: Layout, code: number, zone = 0, ede?: Buffer): CachedAnswer {
  const writer = new ResponseWriter(shape.limit, shape.reserved + (query.edns === undefined ? 0 : (ede?.length ?? 0)));
  writer.question(query.questionBytes, query.name);
  const start = writer.length;
  const counts: [number, number, number, number] = [1, 0, 0, 0];
  const complete = writeSections(writer, sections, counts);
  const authoritative = sections.authoritative && code !== rcode.refused && code !== rcode.notImp && code !== rcode.formErr;
  return {
    zone,
    authoritative,
    truncated: !complete,
    rcode: code,
    counts: complete ? [counts[1], counts[2], counts[3]] : [0, 0, 0],
    body: complete ? writer.copyFrom(start) : Buffer.alloc(0),
    ede,
  };
}

function emit(query: Query, answer: CachedAnswer, shape: Layout, scope: number): Buffer {
  const writer = new ResponseWriter(shape.limit);
  writer.question(query.questionBytes, query.name, false);
  writer.raw(answer.body);
  const counts: [number, number, number, number] = [1, ...answer.counts];
  if (query.edns) {
    writer.opt(maxUdpPayload, answer.rcode >> 4, { dnssecOk: query.edns.dnssecOk, compactOk: query.edns.compactOk }, ednsOptions(query, scope, shape, answer.ede));
    counts[3] += 1;
  }
  return writer.finish({ id: query.id, queryFlags: query.flags, authoritative: answer.authoritative, truncated: answer.truncated, rcode: answer.rcode, counts });
}

function encode(query: Query, sections: Sections, transport: Transport, code: number): Buffer {
  const shape = layout(query, transport);
  return emit(query, compose(query, sections, shape, code), shape, 0);
}

/** An answer with nothing in it but its code and Extended DNS Error. */
function refusal(query: Query, shape: Layout, code: number, ede: Buffer): CachedAnswer {
  return compose(query, empty(false), shape, code, 0, ede);
}

/** The answer for a name in no served zone: not ours, in a disabled zone, or in one not loaded. */
function unserved(zones: ServedZones, query: Query, shape: Layout): CachedAnswer {
  const absence = zones.absence(query.name);
  if (absence === 'unloaded') return refusal(query, shape, rcode.servFail, extendedErrors.zoneNotLoaded);
  return refusal(query, shape, rcode.refused, absence === 'disabled' ? extendedErrors.zoneDisabled : extendedErrors.notAuthoritative);
}

/**
 * The reply when answering `message` threw: SERVFAIL, with the question and, to a query with EDNS,
 * an Extended DNS Error telling a signing failure from any other. Undefined for what has no header.
 */
export function failure(message: Buffer, error: unknown): Buffer | undefined {
  let query: Query;
  try {
    query = parseQuery(message);
  } catch {
    return headerOnly(message, rcode.servFail);
  }
  const shape: Layout = { limit: classicUdpPayload, reserved: 0, nsid: undefined, cookie: undefined, cookieVerdict: undefined };
  const ede = error instanceof SigningError ? extendedErrors.signingFailed : extendedErrors.internalError;
  return emit(query, refusal(query, shape, rcode.servFail, ede), shape, 0);
}

/**
 * The OPT record of a reply slipped out truncated by the response rate limit (rate-limit.ts), for a
 * query with EDNS: DO and CO echoed, and the Extended DNS Error saying why.
 */
export function rateLimitedOpt(message: Buffer): Buffer | undefined {
  let query: Query;
  try {
    query = parseQuery(message);
  } catch {
    return undefined;
  }
  if (query.edns === undefined) return undefined;
  const writer = new ResponseWriter(128);
  const start = writer.length;
  writer.opt(maxUdpPayload, 0, { dnssecOk: query.edns.dnssecOk, compactOk: query.edns.compactOk }, extendedErrors.rateLimited);
  return writer.copyFrom(start);
}

const empty = (authoritative: boolean): Sections => ({ rcode: 0, authoritative, answer: [], authority: [], additional: [], requiredAdditional: 0 });

interface PickersUsed {
  pickers: boolean;
  /** A chain with a random step (weighted_shuffle): its answer may differ at every query. */
  random: boolean;
}

/** Picks records per query; a static RRset answers all its records without looking at anyone. */
function selector(query: Query, transport: Transport, geo: GeoLookup | undefined, used: PickersUsed): LookupOptions['select'] {
  let who: Requester | undefined;
  return (rrset) => {
    if (rrset.pickers === null) return allRecords(recordCount(rrset));
    used.pickers = true;
    if (rrset.pickers.chain.some((p) => p.type === 'weighted_shuffle')) used.random = true;
    const subnet = query.edns?.clientSubnet;
    who ??= requester(subnet ? subnetAddress(subnet.family, subnet.address) : transport.source, geo);
    return applyPickers(rrset.pickers.records, rrset.pickers.chain, who).map((r) => r.index);
  };
}

export interface Responder {
  zones: ServedZones;
  cache: ResponseCache;
  geo: GeoLookup | undefined;
  metrics: DnsMetrics | undefined;
  /** Set by `respond`: the id of the zone that answered the query, 0 for none (query-stats.ts counts it). */
  zone: number;
  /** Set by `respond`: the query carried a valid server cookie, so its source address is not forged. */
  verified: boolean;
}

export function respond(server: Responder, message: Buffer, transport: Transport): Buffer | undefined {
  const { zones, cache, geo, metrics } = server;
  server.zone = 0;
  server.verified = false;
  // Responses (QR set) are never answered: that is how reflection loops start.
  if (message.length >= 3 && ((message[2] ?? 0) & 0x80) !== 0) return undefined;
  // Before any answer, from the parsed query or from a kept reply: a zone change empties the cache,
  // and so does a new signing epoch (signed answers carry the signatures of one epoch).
  cache.sync(zones.version, signingEpoch());
  const kept = cache.reply(message, transport.udp);
  if (kept !== undefined) {
    metrics?.cache(true);
    server.zone = cache.keptZone;
    return kept;
  }
  let query: Query;
  try {
    query = parseQuery(message);
  } catch (e) {
    if (!(e instanceof QueryError)) throw e;
    return headerOnly(message, rcode.formErr);
  }
  if (query.opcode !== 0) return encode(query, empty(false), transport, rcode.notImp);
  if (query.edns !== undefined && query.edns.version > 0) return encode(query, empty(false), transport, rcode.badVers);
  if (query.edns?.badClientSubnet === true || query.edns?.badCookie === true) return encode(query, empty(false), transport, rcode.formErr);
  const shape = layout(query, transport);
  // A server cookie we did not make, or no longer accept: over UDP the client is told to use the
  // fresh one sent along (RFC 7873 §5.2.3) and asks again; TCP has proved the address already.
  if (shape.cookieVerdict === 'invalid' && transport.udp) return emit(query, compose(query, empty(false), shape, rcode.badCookie), shape, 0);
  server.verified = shape.cookieVerdict === 'valid';
  // Class ANY asks the same data as IN for an authoritative server.
  if (query.qclass !== classIn && query.qclass !== classAny) return emit(query, compose(query, empty(false), shape, rcode.refused), shape, 0);
  // Transfers come over TCP from the addresses allowed (dns-server.ts); any other is refused.
  if (transferTypes.has(query.qtype)) return emit(query, refusal(query, shape, rcode.refused, extendedErrors.transferProhibited), shape, 0);
  // OPT belongs in the additional section; NXNAME only in compact proofs (RFC 9824 §3.5).
  if (query.qtype === typeCode.opt || query.qtype === typeCode.nxname) return emit(query, compose(query, empty(false), shape, rcode.formErr), shape, 0);

  const dnssecOk = query.edns?.dnssecOk === true;
  const compactOk = query.edns?.compactOk === true;
  const key = cacheKey(query.name, query.qtype, shape.limit, shape.reserved, dnssecOk, compactOk);
  const cached = cache.get(key);
  if (cached !== undefined) {
    metrics?.cache(true);
    server.zone = cached.zone;
    return emit(query, cached, shape, 0);
  }
  // The requester as the pickers see it: the client subnet exactly as sent, else the source.
  const subnet = query.edns?.clientSubnet;
  const who = subnet === undefined ? transport.source : `${String(subnet.family)}/${String(subnet.sourcePrefix)}/${subnet.address.toString('hex')}`;
  // Their ECS scope says how much of the client's subnet a tailored answer depended on (RFC 7871 §7.2.1).
  const scope = subnet?.sourcePrefix ?? 0;
  const tailored = cache.tailored(key, who);
  metrics?.cache(tailored !== undefined);
  if (tailored !== undefined) {
    server.zone = tailored.zone;
    return emit(query, tailored, shape, scope);
  }

  // A DS lives in the parent: at a hosted zone's apex, ask the hosted parent if there is one.
  let zone = zones.find(query.name);
  if (zone !== undefined && zone.name === query.name && query.qtype === typeCode.ds && query.name !== '') {
    const parent = query.name.slice(query.name.indexOf('.') + 1);
    zone = (query.name.includes('.') ? zones.find(parent) : undefined) ?? zone;
  }
  if (zone === undefined) return emit(query, cache.set(key, unserved(zones, query, shape)), shape, 0);

  const used: PickersUsed = { pickers: false, random: false };
  const sections = lookup(zones, zone, query.name, query.qtype, { udp: transport.udp, select: selector(query, transport, geo, used), dnssecOk, compactOk });
  const answer = compose(query, sections, shape, sections.rcode, zone.head.id);
  server.zone = zone.head.id;
  if (!used.pickers) return emit(query, cache.set(key, answer), shape, 0);
  if (!used.random) cache.setTailored(key, who, answer);
  return emit(query, answer, shape, scope);
}
