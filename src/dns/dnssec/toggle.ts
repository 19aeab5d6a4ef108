// The DNSSEC toggle: enabling creates the zone's algorithm-13 key (kept sealed at rest) unless it
// already has one, and answers the key and its DS; disabling stops signing but keeps the key, so
// enabling again publishes the same DNSKEY and the DS at the parent stays valid.
import type { Principal } from '../../accounts/principal.ts';
import { ApiError } from '../../errors.ts';
import type { Db } from '../../store/database.ts';
import type { DnssecKeysTable } from '../../store/schema.ts';
import { callerZone } from '../access.ts';
import { commitZoneChange } from '../commit.ts';
import type { DnsContext } from '../context.ts';
import { delegationSigner, generateZoneKey, sealContext } from './keys.ts';

/** The DS is published at the parent with this TTL in the text form we hand out. */
export const dsTtl = 3600;

/** The zone's key, kept while DNSSEC is off. */
export function findKey(db: Db, zoneId: number): Promise<DnssecKeysTable | undefined> {
  return db.selectFrom('dnssec_keys').selectAll().where('zone_id', '=', zoneId).executeTakeFirst();
}

function keyView(zoneName: string, key: DnssecKeysTable, message: string) {
  const ds = delegationSigner(zoneName, { flags: key.flags, algorithm: key.algorithm, publicKey: key.public_key });
  return {
    algorithm: String(key.algorithm),
    digest: ds.digest,
    digest_algorithm: 'SHA256',
    digest_type: String(ds.digestType),
    ds: `${zoneName}. ${dsTtl} IN DS ${ds.keyTag} ${ds.algorithm} ${ds.digestType} ${ds.digest}`,
    flags: key.flags,
    key_tag: ds.keyTag,
    key_type: 'ECDSAP256SHA256',
    message,
    public_key: key.public_key,
  };
}

export async function toggleDnssec(ctx: DnsContext, caller: Principal, zonePath: string, enabled: boolean) {
  const zone = await callerZone(ctx.store.db, caller, zonePath);
  const { result } = await commitZoneChange(ctx, zone.id, async (tx) => {
    let key = await findKey(tx, zone.id);
    if (key === undefined && enabled) {
      const fresh = generateZoneKey();
      key = {
        zone_id: zone.id,
        algorithm: fresh.algorithm,
        flags: fresh.flags,
        key_tag: fresh.keyTag,
        public_key: fresh.publicKey,
        private_key_sealed: ctx.sealer.seal(fresh.privateKeyDer, sealContext(zone.id)),
        created_at: new Date().toISOString(),
      };
      await tx.insertInto('dnssec_keys').values(key).execute();
    }
    return { result: key, zoneFields: { dnssec_enabled: enabled ? 1 : 0 } };
  });
  if (result === undefined) return { message: 'dnssec is disabled' };
  return keyView(zone.name, result, enabled ? 'dnssec is enabled' : 'dnssec is disabled');
}

export async function readDnssec(ctx: DnsContext, caller: Principal, zonePath: string) {
  const zone = await callerZone(ctx.store.db, caller, zonePath);
  const key = zone.dnssec_enabled === 1 ? await findKey(ctx.store.db, zone.id) : undefined;
  if (key === undefined) throw new ApiError(400, 'dnssec_disabled', 'dnssec is disabled');
  return keyView(zone.name, key, 'dnssec is enabled');
}
