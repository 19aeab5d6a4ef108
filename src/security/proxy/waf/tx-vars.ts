// TX, a request's variables, as a Map would hold them (values by name, in the order they were first
// set), over a starting state every request shares: the settings and the ~40 variables the plan
// works out before the first rule that reads the request (CRS's defaults, rule-plan.ts). Copying
// those into a new Map per request, and growing it past them, was a tenth of the engine's time on an
// ordinary request and a fifth of what it allocated; a request now holds only what it changes.

/** What a request changed of the start: a value, or null for a variable it unset. */
type Change = string | null;

export class TxVars {
  readonly #start: ReadonlyMap<string, string>;
  readonly #own = new Map<string, Change>();
  /**
   * Variables of the start this request unset at some point. A Map forgets an unset name's place: set
   * again, it comes after every other. Their changes then stand in `#own`'s order, not the start's.
   */
  #moved: Set<string> | undefined;

  constructor(start: ReadonlyMap<string, string>) {
    this.#start = start;
  }

  get(name: string): string | undefined {
    const own = this.#own.get(name);
    if (own !== undefined) return own ?? undefined;
    return this.#start.get(name);
  }

  set(name: string, value: string): void {
    // Set again after it was unset: last in order, as a Map puts it.
    if (this.#own.get(name) === null) this.#own.delete(name);
    this.#own.set(name, value);
  }

  delete(name: string): void {
    if (this.#start.has(name)) {
      (this.#moved ??= new Set()).add(name);
      this.#own.set(name, null);
    } else this.#own.delete(name);
  }

  /** The names set, in a Map's order: the start's (where this request did not unset them), then the others as they came. */
  names(): string[] {
    return this.namesWhere(everything, () => true);
  }

  /**
   * The names `select` picks, in a Map's order. `key` stands for `select` (the same key, the same
   * picks): what it picks of the start is worked out once per start, not per request.
   */
  namesWhere(key: object, select: (name: string) => boolean): string[] {
    let byKey = picksOfStart.get(this.#start);
    if (byKey === undefined) {
      byKey = new WeakMap();
      picksOfStart.set(this.#start, byKey);
    }
    let fromStart = byKey.get(key);
    if (fromStart === undefined) {
      fromStart = [...this.#start.keys()].filter(select);
      byKey.set(key, fromStart);
    }
    const moved = this.#moved;
    const out = moved === undefined ? [...fromStart] : fromStart.filter((name) => !moved.has(name));
    this.#own.forEach((value, name) => {
      if (value === null || (this.#start.has(name) && (moved === undefined || !moved.has(name)))) return;
      if (select(name)) out.push(name);
    });
    return out;
  }
}

/** What each selection picks of a start (TxVars.namesWhere). */
const picksOfStart = new WeakMap<ReadonlyMap<string, string>, WeakMap<object, string[]>>();
const everything = {};
