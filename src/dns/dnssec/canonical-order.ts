// The canonical order of names (RFC 4034 §6.1): label by label from the root, each label as an
// octet string with ASCII letters compared in lower case, a shorter label before a longer one that
// starts the same. Denial of existence is judged in this order.

/** Only ASCII letters have a case in DNS names (RFC 4034 §6.2): every other octet stays as it is. */
function lower(octet: number): number {
  return octet >= 0x41 && octet <= 0x5a ? octet | 0x20 : octet;
}

/** A copy of a label in its canonical (lower) case. */
export function lowerLabel(label: Buffer): Buffer {
  return Buffer.from(label.map(lower));
}

export function compareLabels(a: Buffer, b: Buffer): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const d = lower(a[i] ?? 0) - lower(b[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** Names as labels, leftmost first: negative when `a` sorts before `b`. */
export function compareNames(a: readonly Buffer[], b: readonly Buffer[]): number {
  const shared = Math.min(a.length, b.length);
  for (let i = 1; i <= shared; i++) {
    const d = compareLabels(a[a.length - i] ?? Buffer.alloc(0), b[b.length - i] ?? Buffer.alloc(0));
    if (d !== 0) return d;
  }
  // A name sorts before its descendants.
  return a.length - b.length;
}
