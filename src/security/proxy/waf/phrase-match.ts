// @pm and @pmFromFile: whether any of a set of phrases occurs in a value, case-insensitively, in one
// pass over the value whatever the number of phrases (Aho-Corasick, as ModSecurity's own), so a
// list of hundreds of file names costs a long argument no more than a short list.

interface Node {
  next: Map<number, Node>;
  fail: Node | undefined;
  /** The phrase ending here (or at a node its failure links reach), if any. */
  output: string | undefined;
}

const node = (): Node => ({ next: new Map(), fail: undefined, output: undefined });

/** ASCII letters folded to lower case; other bytes as they are. */
const fold = (c: number): number => (c >= 0x41 && c <= 0x5a ? c | 0x20 : c);

export class PhraseMatcher {
  readonly #root = node();

  constructor(phrases: readonly string[]) {
    for (const phrase of phrases) {
      if (phrase === '') continue;
      let at = this.#root;
      for (let i = 0; i < phrase.length; i++) {
        const c = fold(phrase.charCodeAt(i));
        let child = at.next.get(c);
        if (child === undefined) {
          child = node();
          at.next.set(c, child);
        }
        at = child;
      }
      at.output = phrase;
    }
    // Breadth first: a node's failure link is the longest proper suffix of its path that is a path too.
    const queue: Node[] = [];
    for (const child of this.#root.next.values()) {
      child.fail = this.#root;
      queue.push(child);
    }
    for (let q = 0; q < queue.length; q++) {
      const at = queue[q] as Node;
      for (const [c, child] of at.next) {
        let fail = at.fail;
        while (fail !== undefined && !fail.next.has(c)) fail = fail.fail;
        child.fail = fail?.next.get(c) ?? this.#root;
        child.output ??= child.fail.output;
        queue.push(child);
      }
    }
  }

  /** The first phrase found in `value`, or undefined. */
  find(value: string): string | undefined {
    let at = this.#root;
    for (let i = 0; i < value.length; i++) {
      const c = fold(value.charCodeAt(i));
      let next = at.next.get(c);
      while (next === undefined && at !== this.#root) {
        at = at.fail ?? this.#root;
        next = at.next.get(c);
      }
      at = next ?? this.#root;
      if (at.output !== undefined) return at.output;
    }
    return undefined;
  }
}
