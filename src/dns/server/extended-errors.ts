// Extended DNS Errors (RFC 8914): an EDNS option saying why an answer is a refusal or a failure, for
// operators reading `dig`/`kdig` output and for resolvers choosing what to do next. Only sent to
// queries with EDNS (the option lives in the OPT record). Each reason is encoded once.

/** EDNS option code of EDE (RFC 8914 §2). */
const edeOption = 15;

/** An INFO-CODE with its EXTRA-TEXT, encoded as a whole option (code, length, info code, text). */
function option(infoCode: number, text: string): Buffer {
  const extra = Buffer.from(text, 'utf8');
  const bytes = Buffer.alloc(6 + extra.length);
  bytes.writeUInt16BE(edeOption, 0);
  bytes.writeUInt16BE(2 + extra.length, 2);
  bytes.writeUInt16BE(infoCode, 4);
  extra.copy(bytes, 6);
  return bytes;
}

/**
 * The reasons this server gives, with the IANA INFO-CODEs (RFC 8914 §4): 0 Other, 14 Not Ready,
 * 18 Prohibited, 20 Not Authoritative. RFC 8914 has no code for rate limiting or for a failure to
 * sign; those are Other with a text, as Knot Resolver sends "rate-limited".
 */
export const extendedErrors = {
  /** REFUSED: no hosted zone holds the name (Knot sends the same). */
  notAuthoritative: option(20, ''),
  /** REFUSED: the zone exists but its owner disabled it. */
  zoneDisabled: option(20, 'zone disabled'),
  /** REFUSED: a zone transfer from an address or over a transport that may not have one. */
  transferProhibited: option(18, 'zone transfer not allowed'),
  /** SERVFAIL: this DNS thread could not load the zone (it retries; docs/dns-server.md). */
  zoneNotLoaded: option(14, 'zone not loaded'),
  /** SERVFAIL: an online signature could not be made. */
  signingFailed: option(0, 'DNSSEC signing failed'),
  /** SERVFAIL: anything else that went wrong answering. */
  internalError: option(0, 'internal error'),
  /** A truncated reply sent in place of one over the response rate limit: ask again over TCP. */
  rateLimited: option(0, 'rate limited, retry over TCP'),
} as const;
