// Domain names in DNS wire form (RFC 1035 §3.1), uncompressed and lower case: the canonical form
// of RFC 4034 §6.2 that DNSSEC digests and signatures are computed over.

/** `example.com` (canonical, no trailing dot; '' for the root) → `\x07example\x03com\x00`. */
export function canonicalWireName(name: string): Buffer {
  const labels = name === '' ? [] : name.toLowerCase().split('.');
  const parts: Buffer[] = [];
  for (const label of labels) {
    const bytes = Buffer.from(label, 'ascii');
    parts.push(Buffer.from([bytes.length]), bytes);
  }
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}
