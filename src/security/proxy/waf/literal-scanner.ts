// Finds which of many literal strings occur in a value, in one pass whatever their number, and
// answers with a bitset of the owners of those literals (the rules that need them, prefilter.ts).
// Aho-Corasick compiled to a table: one lookup per byte of the value, no failure links followed at
// run time. Bytes are mapped to classes first (the bytes no literal holds share one, ASCII letters
// their lower case's), which keeps the table a few MiB for the Core Rule Set's ~3,500 literals.

/** A set of owners: bit i of word i >> 5. */
export type Bits = Uint32Array;

export class LiteralScanner {
  /** Owners' bitsets are this many words long. */
  readonly words: number;
  readonly #classOf = new Uint8Array(256);
  readonly #classes: number;
  /** Next state: #delta[state * #classes + class]; 16 bits a state while there are at most 65,535 (CRS 3.3.4: 6 MB in all). */
  readonly #delta: Uint16Array | Uint32Array;
  /** The owners found on reaching each state (its literals' and those its suffixes end), as an index into #from, or -1. */
  readonly #output: Int32Array;
  /** Output i sets the words #words[#from[i] .. #from[i + 1]) of the result to their #masks: most name one owner, so one word. */
  readonly #from: Uint32Array;
  readonly #wordOf: Uint16Array;
  readonly #maskOf: Uint32Array;
  /** The scan each output was last applied in: an output met twice in one value is applied once. */
  readonly #seen: Uint32Array;
  #scans = 0;

  /** `literals[i]`: the literals of owner i (lower case; letters are matched in either case). */
  constructor(literals: readonly (readonly string[])[]) {
    this.words = Math.max(1, Math.ceil(literals.length / 32));
    this.none = new Uint32Array(this.words);
    // Classes: 0 for bytes no literal holds.
    let classes = 1;
    for (const set of literals) {
      for (const literal of set) {
        for (let i = 0; i < literal.length; i++) {
          const c = literal.charCodeAt(i) & 0xff;
          if (this.#classOf[c] !== 0) continue;
          this.#classOf[c] = classes;
          if (c >= 0x61 && c <= 0x7a) this.#classOf[c & ~0x20] = classes;
          classes++;
        }
      }
    }
    this.#classes = classes;
    // The trie, with its owners at the states where literals end.
    const next: Map<number, number>[] = [new Map<number, number>()];
    const owners: (Set<number> | undefined)[] = [undefined];
    literals.forEach((set, owner) => {
      for (const literal of set) {
        if (literal === '') continue;
        let state = 0;
        for (let i = 0; i < literal.length; i++) {
          const cls = this.#classOf[literal.charCodeAt(i) & 0xff] ?? 0;
          let to = next[state]?.get(cls);
          if (to === undefined) {
            to = next.length;
            next.push(new Map<number, number>());
            owners.push(undefined);
            next[state]?.set(cls, to);
          }
          state = to;
        }
        (owners[state] ??= new Set()).add(owner);
      }
    });
    // Breadth first: each state's transitions are its trie edges, else its failure state's.
    const states = next.length;
    this.#delta = states <= 0xffff ? new Uint16Array(states * classes) : new Uint32Array(states * classes);
    const fail = new Uint32Array(states);
    const queue: number[] = [];
    for (const [cls, to] of next[0] ?? []) {
      this.#delta[cls] = to;
      queue.push(to);
    }
    for (let q = 0; q < queue.length; q++) {
      const state = queue[q] ?? 0;
      const failed = owners[fail[state] ?? 0];
      if (failed !== undefined) owners[state] = new Set([...(owners[state] ?? []), ...failed]);
      for (let cls = 0; cls < classes; cls++) {
        const to = next[state]?.get(cls);
        const viaFail = this.#delta[(fail[state] ?? 0) * classes + cls] ?? 0;
        if (to === undefined) this.#delta[state * classes + cls] = viaFail;
        else {
          this.#delta[state * classes + cls] = to;
          fail[to] = viaFail;
          queue.push(to);
        }
      }
    }
    // Outputs, one per distinct set of owners, as the (word, mask) pairs of its bitset that are not 0.
    this.#output = new Int32Array(states).fill(-1);
    const byKey = new Map<string, number>();
    const pairs: [word: number, mask: number][][] = [];
    owners.forEach((set, state) => {
      if (set === undefined) return;
      const key = [...set].sort((a, b) => a - b).join(',');
      let index = byKey.get(key);
      if (index === undefined) {
        const masks = new Map<number, number>();
        for (const owner of set) masks.set(owner >>> 5, (masks.get(owner >>> 5) ?? 0) | (1 << (owner & 31)));
        index = pairs.push([...masks]) - 1;
        byKey.set(key, index);
      }
      this.#output[state] = index;
    });
    this.#from = new Uint32Array(pairs.length + 1);
    const total = pairs.reduce((n, p) => n + p.length, 0);
    this.#wordOf = new Uint16Array(total);
    this.#maskOf = new Uint32Array(total);
    let at = 0;
    pairs.forEach((list, i) => {
      this.#from[i] = at;
      for (const [word, mask] of list) {
        this.#wordOf[at] = word;
        this.#maskOf[at] = mask >>> 0;
        at++;
      }
    });
    this.#from[pairs.length] = at;
    this.#seen = new Uint32Array(pairs.length);
  }

  /** Found nothing: what every scan that finds nothing answers (never written to). */
  readonly none: Bits;

  /** The owners with a literal in `value`; `none` itself when there are none. */
  scan(value: string): Bits {
    let found = this.none;
    const classOf = this.#classOf;
    const delta = this.#delta;
    const output = this.#output;
    const classes = this.#classes;
    let state = 0;
    const seen = this.#seen;
    if (this.#scans === 0xffffffff) {
      // Stamps are about to repeat: forget them all.
      seen.fill(0);
      this.#scans = 0;
    }
    const scan = ++this.#scans;
    // Indexes are in range by construction: the casts spare the hot loop undefined checks.
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i);
      state = delta[state * classes + (c < 256 ? (classOf[c] as number) : 0)] as number;
      const out = output[state] as number;
      if (out >= 0 && seen[out] !== scan) {
        seen[out] = scan;
        if (found === this.none) found = new Uint32Array(this.words);
        for (let k = this.#from[out] as number, end = this.#from[out + 1] as number; k < end; k++) {
          const word = this.#wordOf[k] as number;
          found[word] = (found[word] as number) | (this.#maskOf[k] as number);
        }
      }
    }
    return found;
  }
}
