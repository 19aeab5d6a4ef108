// The transformation chains of a rule set (`t:urlDecodeUni,t:lowercase`), as a tree: chains that
// start alike share their first steps, so a value goes through `t:utf8toUnicode,t:urlDecodeUni`
// once for the dozen Core Rule Set rules whose chains begin that way. Each step is a node; a rule
// names the node its chain ends at, and the engine keeps each value's result per node (engine.ts).
import { triggersOf } from './transform-triggers.ts';
import { transformations, type Transformation } from './transformations.ts';

export interface TransformStep {
  /** The node before this step (0: the value as it is). */
  parent: number;
  apply: Transformation;
  /** What makes this step or one before it change a value other than in case (transform-triggers.ts). */
  triggers: number;
}

export class TransformChains {
  /** Node 0 is the empty chain; its entry is never read. */
  readonly steps: TransformStep[] = [{ parent: 0, apply: (value) => value, triggers: 0 }];
  readonly #children = new Map<string, number>();
  /** Each node's path from node 0, made once (multiMatch reads it per value). */
  readonly #paths: number[][] = [[0]];

  /** The node of a chain, given its transformations' names (lower case, each one transformations.ts knows). */
  node(names: readonly string[]): number {
    let node = 0;
    for (const name of names) {
      const key = `${String(node)}/${name}`;
      let child = this.#children.get(key);
      if (child === undefined) {
        const apply = transformations.get(name);
        if (apply === undefined) throw new Error(`no transformation t:${name}`);
        child = this.steps.push({ parent: node, apply, triggers: (this.steps[node]?.triggers ?? 0) | triggersOf(name) }) - 1;
        this.#paths.push([...(this.#paths[node] ?? [0]), child]);
        this.#children.set(key, child);
      }
      node = child;
    }
    return node;
  }

  /** The nodes from the value as it is (0) to `node`: what multiMatch tries, in order. */
  path(node: number): readonly number[] {
    return this.#paths[node] ?? [0];
  }
}
