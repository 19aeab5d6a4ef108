// Lists of entries edited in place (aliases, origins, rate rules): each entry is a row whose
// controls carry the API's path with the entry's index (`origins[1].origin_weight`), so a validation
// message lands beside its control. Adding or removing a row renders the rows again from what they
// hold, which keeps every index equal to the entry's place in the body sent.
import { h, replace } from '../dom.ts';

export interface Row<T> {
  element: HTMLElement;
  value(): T;
  /** Where focus goes when the row is added. */
  first: HTMLElement;
}

export interface RepeaterOptions<T> {
  /** The API's path of the list: `origins`. */
  path: string;
  items: T[];
  blank: () => T;
  /** Builds row `index`; `remove` is undefined for read-only users. */
  row: (item: T, index: number, remove: (() => void) | undefined) => Row<T>;
  addLabel: string;
  /** Shown when there are no entries. */
  empty: string;
  readOnly: boolean;
}

export interface Repeater<T> {
  element: HTMLElement;
  values(): T[];
}

export function repeater<T>(options: RepeaterOptions<T>): Repeater<T> {
  let rows: Row<T>[] = [];
  const list = h('div', { class: 'repeat-list' });
  const values = (): T[] => rows.map((r) => r.value());

  const render = (items: T[]): void => {
    rows = items.map((item, i) =>
      options.row(item, i, options.readOnly ? undefined : () => {
        const kept = values();
        kept.splice(i, 1);
        render(kept);
        (rows[Math.min(i, rows.length - 1)]?.first ?? add).focus();
      }),
    );
    replace(list, rows.length === 0 ? h('p', { class: 'muted' }, options.empty) : rows.map((r) => r.element));
  };

  const add = h('button', {
    type: 'button',
    class: 'secondary',
    'data-write': true,
    onclick: () => {
      render([...values(), options.blank()]);
      rows.at(-1)?.first.focus();
    },
  }, options.addLabel);

  render(options.items);
  const element = h(
    'div',
    { class: 'repeater' },
    list,
    // Messages about the list as a whole ("at most 100 entries").
    h('p', { class: 'field-error', 'data-error-for': options.path }),
    options.readOnly ? null : h('div', { class: 'actions' }, add),
  );
  return { element, values };
}

/** A row's remove button, named after the row for screen readers. */
export function removeButton(label: string, remove: (() => void) | undefined): HTMLElement | null {
  if (remove === undefined) return null;
  return h('button', { type: 'button', class: 'secondary remove', 'data-write': true, 'aria-label': `Remove ${label}`, onclick: remove }, 'Remove');
}
