// A list of strings as text, one entry a line (a resource's black- and whitelists, a network
// mapping's tags and networks): lists run to thousands of entries, which rows of inputs would make
// tedious. The API names a bad entry by its index under the list's path (`blacklists[3]…`,
// `mapping[0].cidr4[2]`); `placeLineErrors` turns that into the line the user typed it on.
import { ApiError } from '../api.ts';
import { h } from '../dom.ts';
import { field } from './field.ts';

export interface LineList {
  element: HTMLElement;
  /** The non-empty lines, in order: the body's entries. */
  entries(): string[];
  /** The list's path in the body: `blacklists`, `mapping[0].tags`. */
  path: string;
  /** Line number (from 1) of entry `index`. */
  lineOf(index: number): number;
}

export function lineList(options: { label: string; path: string; entries: string[]; hint: string; rows?: number; readOnly?: boolean }): LineList {
  const control = h('textarea', { rows: options.rows ?? 5, spellcheck: 'false', autocomplete: 'off', class: 'line-list', readonly: options.readOnly === true });
  control.value = options.entries.join('\n');
  const lines = (): { text: string; line: number }[] =>
    control.value
      .split('\n')
      .map((text, i) => ({ text: text.trim(), line: i + 1 }))
      .filter((l) => l.text !== '');
  return {
    element: field({ label: options.label, path: options.path, control, hint: options.hint }),
    entries: () => lines().map((l) => l.text),
    path: options.path,
    lineOf: (index) => lines()[index]?.line ?? index + 1,
  };
}

/** The same error with each entry's message moved to its list's field, saying which line. */
export function placeLineErrors(error: unknown, lists: LineList[]): unknown {
  if (!(error instanceof ApiError)) return error;
  const fields: Record<string, string> = {};
  for (const [path, message] of Object.entries(error.fields)) {
    const list = lists.find((l) => path.startsWith(`${l.path}[`));
    const index = list === undefined ? undefined : /^\[(\d+)\]/.exec(path.slice(list.path.length))?.[1];
    if (list === undefined || index === undefined) {
      fields[path] = message;
      continue;
    }
    const text = `line ${String(list.lineOf(Number(index)))} (${list.entries()[Number(index)] ?? ''}): ${message}`;
    fields[list.path] = fields[list.path] === undefined ? text : `${fields[list.path] ?? ''}; ${text}`;
  }
  return new ApiError(error.status, error.code, error.message, fields, error.retryAfter);
}
