// The type bit maps of NSEC RDATA (RFC 4034 §4.1.2): per 256-type window, the window number, the
// length of its bitmap and the bitmap, windows in increasing order, trailing zero octets left out.

export function typeBitmap(types: Iterable<number>): Buffer {
  const windows = new Map<number, Buffer>();
  for (const type of types) {
    const window = type >> 8;
    const bits = windows.get(window) ?? Buffer.alloc(32);
    const low = type & 0xff;
    bits[low >> 3] = (bits[low >> 3] ?? 0) | (0x80 >> (low & 7));
    windows.set(window, bits);
  }
  const parts: Buffer[] = [];
  for (const window of [...windows.keys()].sort((a, b) => a - b)) {
    const bits = windows.get(window) ?? Buffer.alloc(0);
    let length = bits.length;
    while (length > 0 && bits[length - 1] === 0) length--;
    parts.push(Buffer.from([window, length]), bits.subarray(0, length));
  }
  return Buffer.concat(parts);
}
