// Domain names in DNS wire form (RFC 1035 §3.1), uncompressed and lower case: the canonical form
// of RFC 4034 §6.2 that DNSSEC digests and signatures are computed over; and the reader of a
// possibly compressed name in a message, for the server's queries and the stub client's replies.
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

const maxNameOctets = 255;
/** Pointers followed in one name: each must point backwards, so this only bounds the work. */
const maxPointerHops = 64;

/**
 * A label read off a message as text, lower case. DNS compares ASCII letters only without case
 * (RFC 4343: other octets are left alone); a dot or backslash inside a label is escaped. Most
 * labels need neither change: the server reads every query's name through here.
 */
function readLabel(message: Buffer, start: number, end: number): string {
  let plain = true;
  for (let i = start; i < end; i++) {
    const c = message[i] ?? 0;
    if ((c >= 0x41 && c <= 0x5a) || c === 0x2e || c === backslash) {
      plain = false;
      break;
    }
  }
  const text = message.toString('latin1', start, end);
  if (plain) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out += c === 0x2e || c === backslash ? `\\${String.fromCharCode(c)}` : String.fromCharCode(c >= 0x41 && c <= 0x5a ? c | 0x20 : c);
  }
  return out;
}

/**
 * Reads a possibly compressed name at `start` of a message that is not trusted: its text form
 * (lower case) and the offset after it in place. Anything malformed throws a `Failure`: the
 * caller's own error (the server answers FORMERR, the client refuses the reply).
 */
export function readWireName(message: Buffer, start: number, Failure: new (reason: string) => Error): { name: string; next: number } {
  const labels: string[] = [];
  let offset = start;
  let next = -1;
  let hops = 0;
  let length = 1;
  for (;;) {
    if (offset >= message.length) throw new Failure('name runs past the end of the message');
    const size = message[offset] ?? 0;
    if ((size & 0xc0) === 0xc0) {
      if (offset + 1 >= message.length) throw new Failure('compression pointer runs past the end of the message');
      if (++hops > maxPointerHops) throw new Failure('too many compression pointers');
      const target = ((size & 0x3f) << 8) | (message[offset + 1] ?? 0);
      // A pointer goes backwards (RFC 1035 §4.1.4 points at a prior occurrence): no loops.
      if (target >= offset) throw new Failure('compression pointer does not point backwards');
      if (next < 0) next = offset + 2;
      offset = target;
      continue;
    }
    if ((size & 0xc0) !== 0) throw new Failure('unknown label type');
    if (size === 0) {
      if (next < 0) next = offset + 1;
      break;
    }
    if (offset + 1 + size > message.length) throw new Failure('label runs past the end of the message');
    length += size + 1;
    if (length > maxNameOctets) throw new Failure('name is longer than 255 octets');
    labels.push(readLabel(message, offset + 1, offset + 1 + size));
    offset += 1 + size;
  }
  return { name: labels.join('.'), next };
}
