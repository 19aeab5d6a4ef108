// A minimal MaxMind DB writer (https://maxmind.github.io/MaxMind-DB/), enough to make small custom
// databases of any record size and IP version for the tests: mmdb-lib only reads them.
import { parseAddress } from '../../src/geo/address.ts';

export type MmdbValue = string | number | boolean | MmdbValue[] | { [key: string]: MmdbValue };

/** The control byte(s): type (extended past 7) and size (one extra byte past 28). */
function control(type: number, size: number): Buffer {
  if (size >= 29 + 256) throw new Error('the test writer only writes short values');
  const [low, extra] = size < 29 ? [size, []] : [29, [size - 29]];
  return Buffer.from(type <= 7 ? [(type << 5) | low, ...extra] : [low, type - 7, ...extra]);
}

function encode(value: MmdbValue): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value);
    return Buffer.concat([control(2, bytes.length), bytes]);
  }
  if (typeof value === 'boolean') return control(14, value ? 1 : 0);
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) {
    let size = 0;
    while (value >= 2 ** (8 * size)) size++;
    const bytes = Buffer.alloc(size);
    if (size > 0) bytes.writeUIntBE(value, 0, size);
    return Buffer.concat([control(6, size), bytes]);
  }
  if (typeof value === 'number') {
    const bytes = Buffer.alloc(8);
    bytes.writeDoubleBE(value);
    return Buffer.concat([control(3, 8), bytes]);
  }
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encode)]);
  const entries = Object.entries(value);
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([key, item]) => [encode(key), encode(item)])]);
}

interface Node {
  children: [Node | number | undefined, Node | number | undefined];
  index: number;
}

/** A database mapping each CIDR (IPv4 ones under ::/96 in an IPv6 tree) to its record. */
export function writeMmdb(networks: Record<string, MmdbValue>, options: { recordSize: 24 | 28 | 32; ipVersion: 4 | 6 }): Buffer {
  const root: Node = { children: [undefined, undefined], index: 0 };
  const nodes = [root];
  const records: Buffer[] = [];
  let dataSize = 0;
  for (const [cidr, record] of Object.entries(networks)) {
    const [address = '', length = ''] = cidr.split('/');
    const words = new Uint32Array(4);
    const family = parseAddress(address, words);
    const offset = family === 4 && options.ipVersion === 6 ? 96 : 0;
    const bits = Number(length) + offset;
    let node = root;
    for (let depth = 0; depth < bits; depth++) {
      const at = depth - offset;
      const bit = at < 0 ? 0 : ((words[at >>> 5]! >>> (31 - (at & 31))) & 1) as 0 | 1;
      if (depth === bits - 1) {
        node.children[bit] = dataSize;
        break;
      }
      let next = node.children[bit];
      if (typeof next !== 'object') {
        next = { children: [undefined, undefined], index: nodes.length };
        nodes.push(next);
        node.children[bit] = next;
      }
      node = next;
    }
    const bytes = encode(record);
    records.push(bytes);
    dataSize += bytes.length;
  }
  const nodeCount = nodes.length;
  const value = (child: Node | number | undefined) =>
    child === undefined ? nodeCount : typeof child === 'number' ? nodeCount + 16 + child : child.index;
  const nodeBytes = (options.recordSize * 2) / 8;
  const tree = Buffer.alloc(nodeCount * nodeBytes);
  for (const { children, index } of nodes) {
    const [left, right] = [value(children[0]), value(children[1])];
    const at = index * nodeBytes;
    if (options.recordSize === 24) {
      tree.writeUIntBE(left, at, 3);
      tree.writeUIntBE(right, at + 3, 3);
    } else if (options.recordSize === 28) {
      tree.writeUIntBE(left & 0xffffff, at, 3);
      tree[at + 3] = ((left >>> 24) << 4) | (right >>> 24);
      tree.writeUIntBE(right & 0xffffff, at + 4, 3);
    } else {
      tree.writeUInt32BE(left, at);
      tree.writeUInt32BE(right, at + 4);
    }
  }
  const metadata = encode({
    node_count: nodeCount,
    record_size: options.recordSize,
    ip_version: options.ipVersion,
    database_type: 'edgeplane-test',
    languages: [],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: 0,
    description: {},
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...records, Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'), metadata]);
}
