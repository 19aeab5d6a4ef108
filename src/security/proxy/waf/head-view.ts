// What a request's head (method, protocol and header fields) gives the rules, kept per distinct
// head. A browser sends the same header block with every request of a kind (a page's images, its
// scripts, its API calls), and with it the same cookies: the fields of REQUEST_HEADERS,
// REQUEST_COOKIES and their names, each with its value's memo, which of them each target selects,
// which value-wise rules match them (engine.ts) and how the rules reading only the head match it
// (head-chain.ts) are then worked out once per head instead of once per request, and a request
// looks its head up once instead of each of its values.
//
// All of it is a function of the head alone: the requests sending it share the fields, and the
// engine adds to a field only what is a function of its value (its transformations, its memo).
import type { ChainOutcome } from './head-chain.ts';
import type { Bits } from './literal-scanner.ts';
import type { Field, WafRequest } from './request-fields.ts';
import type { Rule } from './rule-set.ts';

/** The collections made from the head alone. */
export const headCollections: ReadonlySet<string> = new Set(['REQUEST_METHOD', 'REQUEST_PROTOCOL', 'REQUEST_HEADERS', 'REQUEST_HEADERS_NAMES', 'REQUEST_COOKIES', 'REQUEST_COOKIES_NAMES']);

/** The head's collections, and the header the body's processor is chosen by. */
export interface HeadFields {
  method: Field[];
  protocol: Field[];
  headers: Field[];
  headerNames: Field[];
  cookies: Field[];
  cookieNames: Field[];
  /** The Content-Type fields' values, joined. */
  contentType: string;
}

export interface HeadView {
  /** Made by the first request that finds the view new (request-fields.ts). */
  fields: HeadFields | undefined;
  /** Each target's fields among the head's collections, once selected, by the target's slot. */
  selected: (Field[] | undefined)[];
  /** The value-wise rules the head's fields match, by the plan's hit groups they were found for (engine.ts). */
  hits: Map<object, Bits>;
  /** How the chains that read only the head matched it (head-chain.ts). */
  chains: Map<Rule, ChainOutcome>;
  /** Unique in the thread: what the verdicts of the requests sending the head are kept by (verdict-memo.ts). */
  id: number;
}

let views = 0;
export const newHeadView = (): HeadView => ({ fields: undefined, selected: [], hits: new Map(), chains: new Map(), id: views++ });

/**
 * The key of a request's head: its header lines as the client sent them (HTTP/1, whose parser
 * refused what would not parse the same way again: the view is checked for the method and protocol),
 * or else method, protocol and fields, one per line; undefined when a field holds a line feed or the
 * method a space (the parsers refuse them), where two heads could have one key.
 */
export function headKey(req: WafRequest): string | undefined {
  if (req.headerBlock !== undefined) return req.headerBlock;
  if (req.method.includes(' ') || req.method.includes('\n') || req.protocol.includes('\n')) return undefined;
  for (const field of req.headers) if (field.includes('\n')) return undefined;
  return `${req.method} ${req.protocol}\n${req.headers.join('\n')}`;
}
