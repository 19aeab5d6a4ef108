// The names right around another in canonical order (RFC 4470 §3.1), so that a generated NSEC
// covers exactly the name it denies and nothing else: no name can exist strictly between a name and
// its predecessor or successor, whatever the zone holds.
import { wireLength } from '../wire/name.ts';
import { lowerLabel } from './canonical-order.ts';

const maxName = 255;
const maxLabel = 63;
const zero = Buffer.from([0]);

/** The octet just below `octet` in canonical order: 'A'–'Z' sort as 'a'–'z', so '[' is preceded by '@'. */
function octetBefore(octet: number): number {
  const below = octet - 1;
  return below >= 0x41 && below <= 0x5a ? 0x40 : below;
}

/** The octet just above `octet`: after '@' comes '[' for the same reason. */
function octetAfter(octet: number): number {
  const above = octet + 1;
  return above >= 0x41 && above <= 0x5a ? 0x5b : above;
}

/** The greatest descendant of a name: as many labels of 0xff octets as the 255-octet limit allows. */
function lastDescendant(labels: readonly Buffer[]): Buffer[] {
  const out = [...labels];
  for (let room = maxName - wireLength(out); room >= 2; ) {
    const size = Math.min(maxLabel, room - 1);
    out.unshift(Buffer.alloc(size, 0xff));
    room -= size + 1;
  }
  return out;
}

/** The name just before `labels`; the root has none (undefined). */
export function predecessor(labels: readonly Buffer[]): Buffer[] | undefined {
  const [first, ...parent] = labels;
  if (first === undefined) return undefined;
  const last = first[first.length - 1] ?? 0;
  if (last === 0) {
    // `x\000` follows `x` and all of x's descendants; `\000.parent` follows only its parent.
    const shorter = first.subarray(0, first.length - 1);
    return shorter.length === 0 ? parent : lastDescendant([shorter, ...parent]);
  }
  const lowered = lowerLabel(first);
  lowered[lowered.length - 1] = octetBefore(lowered[lowered.length - 1] ?? last);
  // The longest label under the lowered one, then its deepest descendant.
  const room = maxName - wireLength([lowered, ...parent]);
  const padded = Buffer.concat([lowered, Buffer.alloc(Math.max(0, Math.min(maxLabel - lowered.length, room)), 0xff)]);
  return lastDescendant([padded, ...parent]);
}

/** The first name after `labels` and all of its descendants; undefined for the root. */
export function nextSibling(labels: readonly Buffer[]): Buffer[] | undefined {
  const [first, ...parent] = labels;
  if (first === undefined) return undefined;
  if (first.length < maxLabel && wireLength(labels) < maxName) return [Buffer.concat([first, zero]), ...parent];
  // No room to lengthen the label: raise its last octet that is not 0xff, dropping those after it.
  let end = first.length;
  while (end > 0 && first[end - 1] === 0xff) end--;
  if (end === 0) return nextSibling(parent);
  const raised = lowerLabel(first.subarray(0, end));
  raised[end - 1] = octetAfter(raised[end - 1] ?? 0);
  return [raised, ...parent];
}

/** The name just after `labels`: its first child `\000.name` when there is room for one. */
export function successor(labels: readonly Buffer[]): Buffer[] | undefined {
  return wireLength(labels) + 2 <= maxName ? [zero, ...labels] : nextSibling(labels);
}
