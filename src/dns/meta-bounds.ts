// Bounds of the free-form meta objects (zone, RRset, record) that tenants store and every read
// returns: a size, and a nesting depth far below what any serializer or reader of them chokes on.

export const maxMetaDepth = 32;
export const maxMetaBytes = 64 * 1024;

/** True when `value` holds objects or arrays nested more than `levels` deep. */
function nestedBeyond(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels === 0) return true;
  return Object.values(value).some((member) => nestedBeyond(member, levels - 1));
}

/** What is wrong with a meta object's shape, or undefined when it is within bounds. */
export function metaBoundsProblem(meta: object): string | undefined {
  // Depth first: it keeps the JSON.stringify below shallow.
  if (nestedBeyond(meta, maxMetaDepth)) return `must not nest objects or arrays more than ${maxMetaDepth} levels deep`;
  if (Buffer.byteLength(JSON.stringify(meta)) > maxMetaBytes) return `must be at most ${maxMetaBytes / 1024} KiB of JSON`;
  return undefined;
}
