// Whether the parent delegates a name to this service: the NS the resolver reports for the name
// (the referral's NS when it asks the parent's server itself) against ours, which are the service's
// name servers (EDGEPLANE_NAMESERVERS) and, when the caller's account holds the zone, its apex NS.
// The shape is the provider's (gcore_* counts mean "this service's"); `status` and
// `expected_name_servers` are ours.
import type { Principal } from '../../accounts/principal.ts';
import type { Reply } from '../client/message.ts';
import { rdataFields } from '../client/rdata.ts';
import { rcodes, requireResolver, type Resolver } from '../client/resolver.ts';
import type { DnsContext } from '../context.ts';
import { findAccountZone } from '../../store/zones.ts';
import { findRrset } from '../../store/rrsets.ts';
import type { Db } from '../../store/database.ts';
import { canonicalName, NameError } from '../names.ts';
import { specialUseName } from '../reserved-names.ts';
import { typeCode } from '../wire/type-codes.ts';
import { queryName } from './query-name.ts';

/** Name servers reported (a referral holds 13 at most in practice). */
const maxNameServers = 13;
/** Name servers whose addresses are looked up when the reply carried none: two queries each. */
const maxAddressLookups = 4;

export type DelegationState = 'ok' | 'partial' | 'wrong' | 'not_delegated';

interface NameServer {
  name: string;
  ipv4Addresses: string[];
  ipv6Addresses: string[];
}

/** A name server's host name as we compare them: lower case, no trailing dot. */
const hostName = (text: string): string => text.toLowerCase().replace(/\.$/, '');

async function apexNameServers(db: Db, zoneId: number, zone: string): Promise<string[]> {
  const rrset = await findRrset(db, zoneId, zone, 'NS');
  if (rrset === undefined) return [];
  const records = await db.selectFrom('records').select('content').where('rrset_id', '=', rrset.id).where('enabled', '=', 1).execute();
  return records.map((r) => hostName(String((JSON.parse(r.content) as unknown[])[0])));
}

/** The NS RRset at `name`: the answer's, or, in a referral, the authority section's. */
function nameServersIn(reply: Reply, name: string): string[] {
  const inAnswer = reply.answers.filter((r) => r.type === typeCode.ns && r.name === name);
  const records = inAnswer.length > 0 ? inAnswer : reply.authority.filter((r) => r.type === typeCode.ns && r.name === name);
  const names = records.map((r) => hostName(rdataFields(reply, r)[0] ?? ''));
  return [...new Set(names)].sort().slice(0, maxNameServers);
}

/** Addresses of `host` of one family: from the reply's additional section (glue), else asked. */
function addressesIn(reply: Reply, host: string, type: number): string[] {
  return reply.additional.filter((r) => r.type === type && r.name === host).map((r) => rdataFields(reply, r)[0] ?? '');
}

/**
 * A name server's addresses are shown only for a valid name outside the special-use names: a
 * delegation anyone can publish may name `db.corp.internal`, which only the operator's resolver
 * knows (and may add to a reply's additional section).
 */
function askable(host: string): boolean {
  try {
    return canonicalName(host) === host && specialUseName(host) === undefined;
  } catch (e) {
    if (e instanceof NameError) return false;
    throw e;
  }
}

async function lookedUpAddresses(resolver: Resolver, host: string, type: number): Promise<string[]> {
  try {
    const reply = await resolver.query(host, type);
    return reply.answers.filter((r) => r.type === type && r.name === host).map((r) => rdataFields(reply, r)[0] ?? '');
  } catch {
    // One name server's addresses not found is reported as none, not as the whole check failing.
    return [];
  }
}

async function withAddresses(resolver: Resolver, reply: Reply, hosts: string[]): Promise<NameServer[]> {
  let lookups = 0;
  return Promise.all(hosts.map(async (host) => {
    if (!askable(host)) return { name: host, ipv4Addresses: [], ipv6Addresses: [] };
    let ipv4Addresses = addressesIn(reply, host, typeCode.a);
    let ipv6Addresses = addressesIn(reply, host, typeCode.aaaa);
    if (ipv4Addresses.length === 0 && ipv6Addresses.length === 0 && lookups++ < maxAddressLookups) {
      [ipv4Addresses, ipv6Addresses] = await Promise.all([lookedUpAddresses(resolver, host, typeCode.a), lookedUpAddresses(resolver, host, typeCode.aaaa)]);
    }
    return { name: host, ipv4Addresses: ipv4Addresses.sort(), ipv6Addresses: ipv6Addresses.sort() };
  }));
}

export async function delegationStatus(ctx: DnsContext, caller: Principal, pathName: string) {
  const name = queryName(pathName, 'name');
  const resolver = requireResolver(ctx.resolver);
  const zone = await findAccountZone(ctx.store.db, caller.accountId, name);
  const serviceNameServers = ctx.config.nameservers.map(hostName);
  const apex = zone === undefined ? [] : await apexNameServers(ctx.store.db, zone.id, zone.name);
  const ours = new Set([...serviceNameServers, ...apex]);

  const reply = await resolver.query(name, typeCode.ns);
  const hosts = reply.rcode === rcodes.nxDomain ? [] : nameServersIn(reply, name);
  const authorized = hosts.filter((host) => ours.has(host));
  const status: DelegationState =
    hosts.length === 0 ? 'not_delegated' : authorized.length === hosts.length ? 'ok' : authorized.length > 0 ? 'partial' : 'wrong';
  return {
    authoritative_name_servers: await withAddresses(resolver, reply, hosts),
    gcore_authorized_count: authorized.length,
    non_gcore_authorized_count: hosts.length - authorized.length,
    // Delegated to this service under the zone's own (vanity) NS names, none of the service's.
    is_whitelabel_delegation: authorized.length > 0 && authorized.every((host) => !serviceNameServers.includes(host)),
    zone_exists: zone !== undefined,
    status,
    expected_name_servers: [...ours].sort(),
  };
}
