// Zone signing keys: ECDSA P-256 with SHA-256 (algorithm 13), one combined signing key per zone
// (flags 257: zone key + secure entry point), its DNSKEY RDATA, key tag and SHA-256 DS.
import { createHash, generateKeyPairSync } from 'node:crypto';
import { canonicalWireName } from '../wire/name.ts';

export const algorithm = 13;
export const combinedSigningKeyFlags = 257;
const dnssecProtocol = 3;
const sha256DigestType = 2;

export interface ZoneKey {
  flags: number;
  algorithm: number;
  /** The 64-octet public point X‖Y, base64: the DNSKEY public key field. */
  publicKey: string;
  keyTag: number;
  /** PKCS#8 DER of the private key. */
  privateKeyDer: Buffer;
}

export function generateZoneKey(): ZoneKey {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = publicKey.export({ format: 'jwk' });
  if (jwk.x === undefined || jwk.y === undefined) throw new Error('EC key without coordinates');
  const point = Buffer.concat([Buffer.from(jwk.x, 'base64url'), Buffer.from(jwk.y, 'base64url')]);
  const key = { flags: combinedSigningKeyFlags, algorithm, publicKey: point.toString('base64') };
  return {
    ...key,
    keyTag: keyTag(dnskeyRdata(key)),
    privateKeyDer: privateKey.export({ format: 'der', type: 'pkcs8' }),
  };
}

/** DNSKEY RDATA (RFC 4034 §2.1): flags, protocol 3, algorithm, public key. */
export function dnskeyRdata(key: { flags: number; algorithm: number; publicKey: string }): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt16BE(key.flags, 0);
  header.writeUInt8(dnssecProtocol, 2);
  header.writeUInt8(key.algorithm, 3);
  return Buffer.concat([header, Buffer.from(key.publicKey, 'base64')]);
}

/** RFC 4034 Appendix B: the ones'-complement-like sum over the DNSKEY RDATA. */
export function keyTag(rdata: Buffer): number {
  let sum = 0;
  for (let i = 0; i < rdata.length; i++) sum += i % 2 === 0 ? (rdata[i] ?? 0) << 8 : (rdata[i] ?? 0);
  sum += (sum >>> 16) & 0xffff;
  return sum & 0xffff;
}

/** The associated data a zone's private key is sealed with, binding it to its zone. */
export function sealContext(zoneId: number): string {
  return `dnssec-key:${String(zoneId)}`;
}

export interface DelegationSigner {
  keyTag: number;
  algorithm: number;
  digestType: number;
  /** Upper-case hex. */
  digest: string;
}

/** DS digest types (IANA registry) and their hashes: SHA-1 (RFC 4034), SHA-256 (RFC 4509), SHA-384 (RFC 6605). */
const digestHashes = new Map([
  [1, 'sha1'],
  [sha256DigestType, 'sha256'],
  [4, 'sha384'],
]);

/**
 * DS (RFC 4034 §5.1.4): a digest over the owner's canonical wire name and the DNSKEY RDATA, SHA-256
 * unless another digest type is asked for; undefined for a digest type we do not know.
 */
export function delegationSigner(zone: string, key: { flags: number; algorithm: number; publicKey: string }): DelegationSigner;
export function delegationSigner(zone: string, key: { flags: number; algorithm: number; publicKey: string }, digestType: number): DelegationSigner | undefined;
export function delegationSigner(zone: string, key: { flags: number; algorithm: number; publicKey: string }, digestType = sha256DigestType): DelegationSigner | undefined {
  const hash = digestHashes.get(digestType);
  if (hash === undefined) return undefined;
  const rdata = dnskeyRdata(key);
  const digest = createHash(hash).update(canonicalWireName(zone)).update(rdata).digest('hex').toUpperCase();
  return { keyTag: keyTag(rdata), algorithm: key.algorithm, digestType, digest };
}
