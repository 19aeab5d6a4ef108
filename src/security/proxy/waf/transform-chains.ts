// The transformation chains of a rule set (`t:urlDecodeUni,t:lowercase`), as a tree: chains that
// start alike share their first steps, so a value goes through `t:utf8toUnicode,t:urlDecodeUni`
// once for the dozen Core Rule Set rules whose chains begin that way. Each step is a node; a rule
// names the node its chain ends at, and the engine keeps each value's result per node (engine.ts).
import { triggersOf } from './transform-triggers.ts';
import type { Transformation } from './transformations.ts';

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

  /** The node of a chain, given its transformations and their names (the names tell steps apart). */
  node(transforms: readonly Transformation[], names: readonly string[]): number {
    let node = 0;
    transforms.forEach((apply, i) => {
      const name = names[i] ?? '';
      const key = `${String(node)}/${name}`;
      let child = this.#children.get(key);
      if (child === undefined) {
        child = this.steps.push({ parent: node, apply, triggers: (this.steps[node]?.triggers ?? 0) | triggersOf(name) }) - 1;
        this.#children.set(key, child);
      }
      node = child;
    });
    return node;
  }

  /** The nodes from the value as it is (0) to `node`: what multiMatch tries, in order. */
  path(node: number): number[] {
    const out: number[] = [];
    for (let at = node; at !== 0; at = this.steps[at]?.parent ?? 0) out.unshift(at);
    return [0, ...out];
  }
}
