// The DNS server's view of a zone's key: the private key opened from its sealed form, with the
// DNSKEY and DS RDATA the zone publishes. Only zones with DNSSEC on have one.
import { createPrivateKey } from 'node:crypto';
import type { Sealer } from '../../crypto/sealed.ts';
import type { Db } from '../../store/database.ts';
import type { ZoneRow } from '../../store/zones.ts';
import { delegationSigner, dnskeyRdata, sealContext } from './keys.ts';
import { ZoneSigner } from './signer.ts';

export async function zoneSigner(db: Db, sealer: Sealer, zone: ZoneRow): Promise<ZoneSigner | undefined> {
  if (zone.dnssec_enabled !== 1) return undefined;
  const row = await db.selectFrom('dnssec_keys').selectAll().where('zone_id', '=', zone.id).executeTakeFirst();
  if (row === undefined) return undefined;
  const publicKey = { flags: row.flags, algorithm: row.algorithm, publicKey: row.public_key };
  const ds = delegationSigner(zone.name, publicKey);
  const dsRdata = Buffer.concat([Buffer.from([ds.keyTag >> 8, ds.keyTag & 0xff, ds.algorithm, ds.digestType]), Buffer.from(ds.digest, 'hex')]);
  let sealed: Buffer;
  try {
    sealed = sealer.open(row.private_key_sealed, sealContext(zone.id));
  } catch (e) {
    // Signing with no key, or serving unsigned under a DS, would both break validation: say why.
    throw new Error(`cannot open the DNSSEC key of ${zone.name}: this process's EDGEPLANE_SECRET_KEY (or data dir secret.key) is not the one the API sealed it with`, { cause: e });
  }
  const privateKey = createPrivateKey({ key: sealed, format: 'der', type: 'pkcs8' });
  return new ZoneSigner(zone.name, { privateKey, algorithm: row.algorithm, keyTag: ds.keyTag, dnskey: dnskeyRdata(publicKey), ds: dsRdata });
}
