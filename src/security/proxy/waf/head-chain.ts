// Rules whose match reads only a request's head: CRS's protocol checks (`REQUEST_PROTOCOL !@within
// %{tx.allowed_http_versions}`, `&REQUEST_HEADERS:Host @eq 0`, the method against the allowed
// ones) and its restricted headers (920450: each header name recorded in TX, then looked up). Every
// request runs them, and for every request sending the same head they match the same way: the
// first time, what the chain does while it matches (its captures and per-match TX writes, its
// matches) is recorded in the head's view (head-view.ts); after that it is replayed.
//
// A chain qualifies when each of its rules reads only the head's collections or TX by a regex, and
// what it writes while matching is a function of its matches (per-match.ts). On replay the engine
// checks what is not the head: the TX values its operators expand are those recorded, and the TX a
// selector reads holds nothing before the chain runs (it then holds exactly what the chain writes).
// Its actions (the setvars run once it matched, its ctls) run as always.
import type { Field } from './request-fields.ts';
import { headCollections } from './head-view.ts';
import { templateOf } from './macro.ts';
import { perMatchOfRule } from './per-match.ts';
import { captureNames, type Rule } from './rule-set.ts';
import type { TxWrite } from './value-memo.ts';

/** A match of a rule: the variable (its collection and field) and the value it matched, transformed. */
export interface Match {
  collection: string;
  field: Field;
  value: string;
}

/** What a chain does to TX while it matches: a capture (its match and groups) or a setvar's write. */
export type ChainEvent = readonly string[] | TxWrite;

/** A head chain's match, as recorded the first time. */
export interface ChainOutcome {
  /** The TX values its operators expanded. */
  args: string[];
  events: ChainEvent[];
  matched: boolean;
  /** MATCHED_VARS as it left them. */
  matches: Match[];
  /** MATCHED_VAR's match as it left it; undefined: it matched nothing, MATCHED_VAR stands. */
  lastMatch: Match | undefined;
}

/** What of a head chain is checked on replay. */
export interface HeadChain {
  /** Its rules whose operator expands TX values. */
  macroLinks: Rule[];
  /** The TX selectors it reads. */
  txSelectors: RegExp[];
}

/** The TX variables a text's macros name; undefined when one names anything else. */
function txMacros(text: string): string[] | undefined {
  const names: string[] = [];
  for (const { collection, key } of templateOf(text)?.refs ?? []) {
    if (collection !== 'TX' || key === undefined) return undefined;
    names.push(key);
  }
  return names;
}

function shapeOf(head: Rule): HeadChain | null {
  const shape: HeadChain = { macroLinks: [], txSelectors: [] };
  // What the chain writes while matching: an operator expanding one of them reads the chain's own doing.
  const writes: string[] = [];
  for (let r: Rule | undefined = head; r !== undefined; r = r.chain) {
    if (r.capture) writes.push(...captureNames);
    for (const v of perMatchOfRule(r).setvars) {
      const macro = v.name.indexOf('%{');
      writes.push(macro < 0 ? v.name : v.name.slice(0, macro));
    }
  }
  for (let r: Rule | undefined = head; r !== undefined; r = r.chain) {
    if (!perMatchOfRule(r).fromTheMatch) return null;
    for (const t of r.targets) {
      if (headCollections.has(t.collection)) continue;
      if (t.collection === 'TX' && t.selector instanceof RegExp && r !== head) shape.txSelectors.push(t.selector);
      else return null;
    }
    const macros = txMacros(r.operatorArg);
    if (macros === undefined || macros.some((name) => writes.some((w) => name.startsWith(w)))) return null;
    if (macros.length > 0) shape.macroLinks.push(r);
  }
  return shape;
}

const shapes = new WeakMap<Rule, HeadChain | null>();

/** How a chain's match depends on the head alone; null when it does not. */
export function headChainOf(head: Rule): HeadChain | null {
  let shape = shapes.get(head);
  if (shape === undefined) {
    shape = shapeOf(head);
    shapes.set(head, shape);
  }
  return shape;
}

export const sameStrings = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((s, i) => s === b[i]);
