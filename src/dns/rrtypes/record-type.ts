// The contract every record type module fulfils: one module per type under src/dns/rrtypes/.
// `content` is the array of RDATA fields of one resource record, as the API carries it
// (see shared/spec/compat.md, "Content layout per record type").

/** One element of a record's content: a field, or (HTTPS/SVCB) a `[key, values...]` parameter. */
export type ContentValue = string | number | (string | number)[];

/** One token of a zone file's RDATA, unescaped; `quoted` when it was a "quoted string". */
export interface ZoneToken {
  value: string;
  quoted: boolean;
}

/** Invalid content; the message names the problem ("MX preference must be an integer 0-65535"). */
export class ContentError extends Error {}

export interface RecordType {
  /** Mnemonic, upper case: 'MX'. */
  readonly type: string;
  /** IANA type code: 15. */
  readonly code: number;
  /**
   * Validates one record's content as clients send it (numbers may arrive as numeric strings) and
   * returns the canonical content: numbers as JSON numbers, IDNs as A-labels, names with their
   * trailing dot kept as sent. `zone` is the zone's name (lower case, no trailing dot). Throws
   * ContentError.
   */
  parse(content: readonly unknown[], zone: string): ContentValue[];
  /** Canonical content → the RDATA in zone-file presentation form (names fully qualified, with dot). */
  toText(content: readonly ContentValue[]): string;
  /**
   * Zone-file RDATA tokens → content as a client would send it (relative names resolved against
   * `origin`, given without trailing dot). The result still goes through parse(). Throws ContentError.
   */
  fromText(tokens: readonly ZoneToken[], origin: string): ContentValue[];
  /**
   * Canonical content → RDATA in wire form (RFC 1035 §3.3 and each type's RFC), names
   * uncompressed and lower case (RFC 4034 §6.2 canonical form, so the same bytes serve answers and
   * DNSSEC signatures). Only called with content that parse() returned.
   */
  toWire(content: readonly ContentValue[]): Buffer;
}
