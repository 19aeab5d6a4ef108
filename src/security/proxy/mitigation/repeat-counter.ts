// How often each key was seen lately, approximately, in fixed memory whatever the number of keys: a
// count-min sketch (Cormode and Muthukrishnan) of two rows of byte counters, every counter halved
// each second, so a key seen steadily r times a second reads about 2r. A key's estimate is the
// smaller of its two counters: it can only overstate, when other keys share both its cells, which
// the rows' size keeps rare for thousands of active keys. The hashes are seeded per process, so a
// client cannot choose keys that land on another's cells.
import { randomInt } from 'node:crypto';

/** Cells per row: 2^16, 64 KiB a row. */
const rowBits = 16;
const rowMask = (1 << rowBits) - 1;
const saturated = 255;

export class RepeatCounter {
  readonly #cells = new Uint8Array(2 << rowBits);
  readonly #seed = randomInt(2 ** 32 - 1);
  /** The second the counters were last halved for. */
  #second = 0;

  /**
   * Counts `key` once at `nowS` (UNIX seconds): whether its estimate, this time included, is past
   * `limit`. A key past it has its counters raised to the most they hold, so that it stays past
   * until some seconds go by without it (with a limit of 4, six: 255 halved six times is 3).
   */
  past(key: string, limit: number, nowS: number): boolean {
    this.#decay(nowS);
    // FNV-1a and a multiplicative hash in one pass, each from the seed.
    let a = 0x811c9dc5 ^ this.#seed;
    let b = this.#seed;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b + c, 0x9e3779b1) ^ (b >>> 15);
    }
    const first = (a ^ (a >>> 16)) & rowMask;
    const second = ((b ^ (b >>> 13)) & rowMask) | (1 << rowBits);
    const cells = this.#cells;
    const x = (cells[first] ?? 0) + 1;
    const y = (cells[second] ?? 0) + 1;
    if (Math.min(x, y) > limit) {
      cells[first] = saturated;
      cells[second] = saturated;
      return true;
    }
    cells[first] = Math.min(x, saturated);
    cells[second] = Math.min(y, saturated);
    return false;
  }

  /** Halves every counter once per second passed (zero after eight). */
  #decay(nowS: number): void {
    const steps = nowS - this.#second;
    if (steps <= 0) return;
    this.#second = nowS;
    const cells = this.#cells;
    if (steps >= 8) cells.fill(0);
    else for (let i = 0; i < cells.length; i++) cells[i] = (cells[i] ?? 0) >>> steps;
  }
}
