// Online signing (RFC 4034 §3, RFC 4035 §2.2): RRSIGs made when an answer needs them, with the
// zone's algorithm-13 key, and kept for reuse. Signatures are made per signing epoch (a day): valid
// from an hour before the epoch began (clock skew) until two weeks after it, so any signature in
// use has more than twelve days left while answers are cached for at most a week.
import { sign, type KeyObject } from 'node:crypto';
import { recordCount, recordValue, type ServedRrset } from '../server/served-rrset.ts';
import { nameLabels, wireFromLabels } from '../wire/name.ts';
import { lowerLabel } from './canonical-order.ts';

const classIn = 1;
const epochSeconds = 86_400;
const skewSeconds = 3_600;
const validitySeconds = 14 * epochSeconds;
/** Signed answers are cached at most this long (TTLs above it are lowered), well inside a signature's life. */
export const maxSignedTtl = 7 * epochSeconds;
const maxSubsets = 256;

/** The signing epoch now: signatures and cached signed answers from another epoch are not served. */
/** A signature could not be made: the answer is SERVFAIL with an Extended DNS Error saying so. */
export class SigningError extends Error {}

export function signingEpoch(nowMs = Date.now()): number {
  return Math.floor(nowMs / 1000 / epochSeconds);
}

export interface SigningKey {
  privateKey: KeyObject;
  algorithm: number;
  keyTag: number;
  /** DNSKEY and DS RDATA, published at the apex as DNSKEY/CDNSKEY and CDS (RFC 7344). */
  dnskey: Buffer;
  ds: Buffer;
}

/** RFC 4034 §3.1.3: the owner's labels, not counting the root nor a leading wildcard label. */
function labelCount(labels: readonly Buffer[]): number {
  const first = labels[0];
  return first?.length === 1 && first[0] === 0x2a ? labels.length - 1 : labels.length;
}

interface Kept {
  epoch: number;
  rdata: Buffer;
}

export class ZoneSigner {
  readonly key: SigningKey;
  readonly #signerName: Buffer;
  /** Per served RRset (so a changed RRset drops its signatures), per subset a picker chain chose. */
  readonly #kept = new WeakMap<ServedRrset, Map<string, Kept>>();

  constructor(zone: string, key: SigningKey) {
    this.key = key;
    this.#signerName = wireFromLabels(nameLabels(zone));
  }

  /**
   * RRSIG RDATA over RDATA sets of `owner` (as labels): for a wildcard expansion, `owner` is the
   * wildcard's name, and the signature then serves every name the wildcard answers for.
   */
  sign(owner: readonly Buffer[], type: number, ttl: number, rdatas: readonly Buffer[], epoch = signingEpoch()): Buffer {
    const start = epoch * epochSeconds;
    const fields = Buffer.alloc(18);
    fields.writeUInt16BE(type, 0);
    fields[2] = this.key.algorithm;
    fields[3] = labelCount(owner);
    fields.writeUInt32BE(ttl >>> 0, 4);
    // Serial number arithmetic (RFC 4034 §3.1.5) wraps with the 32-bit field.
    fields.writeUInt32BE((start + validitySeconds) >>> 0, 8);
    fields.writeUInt32BE((start - skewSeconds) >>> 0, 12);
    fields.writeUInt16BE(this.key.keyTag, 16);
    const header = Buffer.concat([fields, this.#signerName]);
    // RFC 4034 §6.3: each RR in canonical form, ordered by RDATA, duplicates once.
    const ownerWire = wireFromLabels(owner.map(lowerLabel));
    const sorted = [...rdatas].sort((a, b) => Buffer.compare(a, b)).filter((r, i, all) => i === 0 || !r.equals(all[i - 1] ?? Buffer.alloc(0)));
    const parts: Buffer[] = [header];
    for (const rdata of sorted) {
      const fixed = Buffer.alloc(10);
      fixed.writeUInt16BE(type, 0);
      fixed.writeUInt16BE(classIn, 2);
      fixed.writeUInt32BE(ttl >>> 0, 4);
      fixed.writeUInt16BE(rdata.length, 8);
      parts.push(ownerWire, fixed, rdata);
    }
    let signature: Buffer;
    try {
      signature = sign('sha256', Buffer.concat(parts), { key: this.key.privateKey, dsaEncoding: 'ieee-p1363' });
    } catch (e) {
      throw new SigningError(`signing ${String(type)} at ${owner.map((label) => label.toString('latin1')).join('.')} failed`, { cause: e });
    }
    return Buffer.concat([header, signature]);
  }

  /** The signature of the records chosen (by position) from a served RRset, made once per epoch and subset. */
  rrsetSignature(rrset: ServedRrset, chosen: readonly number[], owner: string): Buffer {
    const epoch = signingEpoch();
    // Pickers never choose a record twice: as many positions as records are all of them.
    const subset = chosen.length === recordCount(rrset) ? '' : [...chosen].sort((a, b) => a - b).join(',');
    let bySubset = this.#kept.get(rrset);
    if (bySubset === undefined) {
      bySubset = new Map();
      this.#kept.set(rrset, bySubset);
    }
    const kept = bySubset.get(subset);
    if (kept?.epoch === epoch) return kept.rdata;
    // A chain choosing from a large set can make many subsets: keep the memory bounded.
    if (bySubset.size >= maxSubsets) bySubset.clear();
    const rdata = this.sign(nameLabels(owner), rrset.type, rrset.ttl, chosen.map((i) => Buffer.from(recordValue(rrset.rdata, i), 'latin1')), epoch);
    bySubset.set(subset, { epoch, rdata });
    return rdata;
  }
}
