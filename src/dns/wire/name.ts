// Domain names in DNS wire form (RFC 1035 §3.1), uncompressed and lower case: the canonical form
// of RFC 4034 §6.2 that DNSSEC digests and signatures are computed over.
//
// The server's text form of a name: labels joined by dots, lower case, no trailing dot, '' for the
// root, with a dot inside a label written `\.` and a backslash `\\` (only query names hold such
// octets; every other octet stands for itself, as a latin1 character).

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

const backslash = 0x5c;

/** Where the label starting at `start` ends: the index of its closing dot, or the name's length. */
export function labelEnd(name: string, start: number): number {
  const dot = name.indexOf('.', start);
  if (dot < 0) return name.length;
  // Most names have no escapes: a dot not right after a backslash ends the label.
  if (name.charCodeAt(dot - 1) !== backslash) return dot;
  for (let i = start; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === backslash) i++;
    else if (c === 0x2e) return i;
  }
  return name.length;
}

/** A label's text (escapes and all) → its octets. */
export function labelOctets(text: string): Buffer {
  return Buffer.from(text.includes('\\') ? text.replace(/\\(.)/g, '$1') : text, 'latin1');
}

/** A label's octets → its text, escaping what would be misread. */
export function labelText(octets: Buffer): string {
  const text = octets.toString('latin1');
  return text.includes('.') || text.includes('\\') ? text.replace(/[.\\]/g, '\\$&') : text;
}

/** The labels of a name in text form, leftmost first. */
export function nameLabels(name: string): Buffer[] {
  const labels: Buffer[] = [];
  for (let start = 0; start < name.length; ) {
    const end = labelEnd(name, start);
    labels.push(labelOctets(name.slice(start, end)));
    start = end + 1;
  }
  return labels;
}

export function nameFromLabels(labels: readonly Buffer[]): string {
  return labels.map(labelText).join('.');
}

/** Labels → wire form, uncompressed. */
export function wireFromLabels(labels: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const label of labels) parts.push(Buffer.from([label.length]), label);
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}

/** Octets a name takes on the wire: each label and its length octet, and the root's. */
export function wireLength(labels: readonly Buffer[]): number {
  let length = 1;
  for (const label of labels) length += 1 + label.length;
  return length;
}
