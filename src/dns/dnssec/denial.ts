// Denial of existence made on the fly: one NSEC per proof, spanning only the name it speaks for
// (RFC 4470), in the compact form of RFC 9824 (a missing name is shown as a name with no data, its
// bitmap holding NXNAME). Nothing about the rest of the zone is revealed, so it cannot be walked.
import type { WireRecord } from '../server/response.ts';
import { nameFromLabels, nameLabels, wireFromLabels } from '../wire/name.ts';
import { typeCode } from '../wire/type-codes.ts';
import { compareNames } from './canonical-order.ts';
import { nextSibling, predecessor, successor } from './epsilon.ts';
import type { ZoneSigner } from './signer.ts';
import { typeBitmap } from './type-bitmap.ts';

/** RFC 9824 §2: the pseudo-type marking a compact answer's name as nonexistent. */

/** The NSEC from `owner` to `next` listing `types` (RRSIG and NSEC are always there), and its RRSIG. */
function signedNsec(signer: ZoneSigner, owner: Buffer[], next: Buffer[], types: Iterable<number>, ttl: number): WireRecord[] {
  const rdata = Buffer.concat([wireFromLabels(next), typeBitmap([...types, typeCode.rrsig, typeCode.nsec])]);
  const name = nameFromLabels(owner);
  return [
    { name, type: typeCode.nsec, ttl, rdata },
    { name, type: typeCode.rrsig, ttl, rdata: signer.sign(owner, typeCode.nsec, ttl, [rdata]) },
  ];
}

/** `name` exists with exactly `types` (NODATA, or an explicit NSEC query): NSEC name → its successor. */
export function noDataProof(signer: ZoneSigner, zone: string, name: string, types: Iterable<number>, ttl: number): WireRecord[] {
  const owner = nameLabels(name);
  // Only the deepest name of all has no successor below the 255-octet limit; the apex then closes the chain.
  return signedNsec(signer, owner, successor(owner) ?? nameLabels(zone), types, ttl);
}

/** `name` does not exist (RFC 9824 §3.2): the NODATA form with NXNAME in the bitmap. */
export function nameErrorProof(signer: ZoneSigner, zone: string, name: string, ttl: number): WireRecord[] {
  return noDataProof(signer, zone, name, [typeCode.nxname], ttl);
}

/**
 * A wildcard answered for a name below `encloser`: the NSEC covering the next closer name (the
 * encloser's child on the way to the question) proves that no closer match exists (RFC 4035
 * §3.1.3.3). It runs from that name's predecessor to the first name after all its descendants,
 * so it covers only names that do not exist.
 */
export function noCloserMatchProof(signer: ZoneSigner, zone: string, nextCloser: string, encloser: { name: string; types: Iterable<number> }, ttl: number): WireRecord[] {
  const closer = nameLabels(nextCloser);
  const before = predecessor(closer) ?? closer;
  const after = nextSibling(closer) ?? nameLabels(zone);
  // `\000.encloser` directly follows the encloser itself: the NSEC is then the encloser's own.
  const atEncloser = compareNames(before, nameLabels(encloser.name)) === 0;
  return signedNsec(signer, before, after, atEncloser ? encloser.types : [], ttl);
}
