// Building blocks of RDATA in wire form (RFC 1035 §3.3): integers in network byte order and
// length-prefixed strings.

export function uint8(value: number): Buffer {
  return Buffer.from([value]);
}

export function uint16(value: number): Buffer {
  const octets = Buffer.alloc(2);
  octets.writeUInt16BE(value);
  return octets;
}

/** A <character-string>: one length octet, then at most 255 octets. */
export function characterString(octets: Uint8Array): Buffer {
  return Buffer.concat([uint8(octets.length), octets]);
}
