// What the parent zone publishes as the zone's DS, asked of the operator's resolver, against the DS
// of the zone's own key: whether the registrar holds the right DS, none, a stale one, or one for a
// zone no longer signed (which makes validating resolvers fail the whole zone).
import type { Principal } from '../../accounts/principal.ts';
import { callerZone } from '../access.ts';
import { rdataFields } from '../client/rdata.ts';
import { rcodes, requireResolver } from '../client/resolver.ts';
import type { DnsContext } from '../context.ts';
import { delegationSigner, type DelegationSigner } from '../dnssec/keys.ts';
import { dsTtl, findKey } from '../dnssec/toggle.ts';
import { typeCode } from '../wire/type-codes.ts';

/** DS records shown; a parent publishes one or two (a few during a key roll). */
const maxParentDs = 32;

export type ParentDsStatus = 'match' | 'mismatch' | 'missing' | 'unexpected' | 'insecure' | 'not_delegated';

const summaries: Record<ParentDsStatus, string> = {
  match: 'the parent publishes a DS for the zone\'s key',
  mismatch: 'the parent publishes DS records, none for the zone\'s key: validating resolvers will fail the zone; give the registrar the DS shown as expected',
  missing: 'the parent publishes no DS: the zone is signed but not validated; give the registrar the DS shown as expected',
  unexpected: 'DNSSEC is off but the parent publishes a DS: validating resolvers will fail the zone; remove the DS at the registrar or turn DNSSEC on',
  insecure: 'DNSSEC is off and the parent publishes no DS',
  not_delegated: 'the parent does not know the zone (NXDOMAIN)',
};

interface DsView {
  key_tag: number;
  algorithm: number;
  digest_type: number;
  digest: string;
  ds: string;
}

const dsView = (zone: string, ds: DelegationSigner, ttl: number): DsView => ({
  key_tag: ds.keyTag,
  algorithm: ds.algorithm,
  digest_type: ds.digestType,
  digest: ds.digest,
  ds: `${zone}. ${String(ttl)} IN DS ${String(ds.keyTag)} ${String(ds.algorithm)} ${String(ds.digestType)} ${ds.digest}`,
});

export async function parentDs(ctx: DnsContext, caller: Principal, zonePath: string) {
  const zone = await callerZone(ctx.store.db, caller, zonePath);
  const resolver = requireResolver(ctx.resolver);
  const key = zone.dnssec_enabled === 1 ? await findKey(ctx.store.db, zone.id) : undefined;
  const reply = await resolver.query(zone.name, typeCode.ds);
  const published = reply.answers
    .filter((r) => r.type === typeCode.ds && r.name === zone.name)
    .slice(0, maxParentDs)
    .map((record) => {
      const [keyTagText = '', algorithmText = '', digestTypeText = '', digest = ''] = rdataFields(reply, record);
      const ds = { keyTag: Number(keyTagText), algorithm: Number(algorithmText), digestType: Number(digestTypeText), digest };
      // Ours when our key, digested the way this DS is, gives the same DS (any digest type we know).
      const ours = key === undefined ? undefined : delegationSigner(zone.name, { flags: key.flags, algorithm: key.algorithm, publicKey: key.public_key }, ds.digestType);
      const matches = ours !== undefined && ours.keyTag === ds.keyTag && ours.algorithm === ds.algorithm && ours.digest === ds.digest;
      return { ...dsView(zone.name, ds, record.ttl), ttl: record.ttl, matches };
    });
  const status: ParentDsStatus =
    reply.rcode === rcodes.nxDomain ? 'not_delegated'
    : key === undefined ? (published.length > 0 ? 'unexpected' : 'insecure')
    : published.length === 0 ? 'missing'
    : published.some((ds) => ds.matches) ? 'match'
    : 'mismatch';
  return {
    name: zone.name,
    status,
    summary: summaries[status],
    dnssec_enabled: key !== undefined,
    expected: key === undefined ? null : dsView(zone.name, delegationSigner(zone.name, { flags: key.flags, algorithm: key.algorithm, publicKey: key.public_key }), dsTtl),
    parent: published,
  };
}
