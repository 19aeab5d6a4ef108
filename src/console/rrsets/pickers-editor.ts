// The RRset's picker chain (docs/api/dns.md, "Pickers and record meta"; the DNS server applies it in
// order, docs/dns-server.md#pickers): add, reorder with buttons (keyboard users have no drag and drop),
// remove, each with its limit and strict flag.
import { append, h, replace } from '../dom.ts';
import { checkbox, field, input, select } from '../components/field.ts';
import type { Picker } from './model.ts';
import { renumber } from './paths.ts';

export const pickerTypes: [type: string, description: string][] = [
  ['geodns', 'records matching the requester: IP range, ASN, country, continent, then fallback/default'],
  ['asn', 'records whose AS numbers hold the requester\'s'],
  ['country', 'records whose countries hold the requester\'s'],
  ['continent', 'records whose continents hold the requester\'s'],
  ['region', 'records whose regions hold the requester\'s (city GeoIP database)'],
  ['ip', 'records whose IP ranges hold the requester\'s address'],
  ['default', 'records marked default'],
  ['geodistance', 'nearest records first (by latitude, longitude)'],
  ['weighted_shuffle', 'random order by weight'],
  ['first_n', 'the first records only (limit, default 1)'],
  ['healthcheck', 'drops records failing the health check'],
  ['is_healthy', 'drops records failing the health check (same as healthcheck)'],
];

const typeOptions: [string, string][] = pickerTypes.map(([type, description]) => [type, `${type} — ${description}`]);

export interface PickersEditor {
  element: HTMLElement;
  value(): Picker[];
}

interface Item {
  element: HTMLElement;
  type: HTMLSelectElement;
  limit: HTMLInputElement;
  strict: HTMLInputElement;
  /** Up, down, remove: absent for read-only users. */
  buttons: { up: HTMLButtonElement; down: HTMLButtonElement; remove: HTMLButtonElement } | undefined;
  index: number;
}

export function pickersEditor(initial: readonly Picker[], readOnly: boolean): PickersEditor {
  const list = h('ol', { class: 'pickers' });
  const empty = h('p', { class: 'muted' }, 'No pickers: every query gets every enabled record.');
  let items: Item[] = [];

  const layout = (): void => {
    items.forEach((item, index) => {
      renumber(item.element, `pickers[${item.index}]`, `pickers[${index}]`);
      item.index = index;
      item.element.setAttribute('aria-label', `Picker ${index + 1}: ${item.type.value}`);
      if (item.buttons !== undefined) {
        item.buttons.up.setAttribute('aria-label', `Move picker ${index + 1} (${item.type.value}) up`);
        item.buttons.down.setAttribute('aria-label', `Move picker ${index + 1} (${item.type.value}) down`);
        item.buttons.remove.setAttribute('aria-label', `Remove picker ${index + 1} (${item.type.value})`);
        item.buttons.up.hidden = index === 0;
        item.buttons.down.hidden = index === items.length - 1;
      }
    });
    replace(list, items.map((item) => item.element));
    empty.hidden = items.length > 0;
  };

  const move = (item: Item, by: -1 | 1, button: 'up' | 'down'): void => {
    const from = items.indexOf(item);
    const to = from + by;
    if (to < 0 || to >= items.length) return;
    items.splice(from, 1);
    items.splice(to, 0, item);
    layout();
    // Moving the element took focus away; give it back to the same button unless it is hidden now,
    // then to its partner.
    const target = item.buttons?.[button].hidden === true ? item.buttons[button === 'up' ? 'down' : 'up'] : item.buttons?.[button];
    target?.focus();
  };

  const remove = (item: Item): void => {
    const at = items.indexOf(item);
    items = items.filter((i) => i !== item);
    layout();
    (items[Math.min(at, items.length - 1)]?.type ?? addButton ?? list).focus();
  };

  const build = (picker: Picker, index: number): Item => {
    const path = `pickers[${index}]`;
    const type = select(
      pickerTypes.some(([t]) => t === picker.type) ? typeOptions : [[picker.type, picker.type], ...typeOptions],
      picker.type,
    );
    const limit = input({ type: 'number', min: 0, max: 1000, value: String(picker.limit), inputmode: 'numeric' });
    const strict = checkbox('Strict (no match: answer nothing)', picker.strict, `${path}.strict`);
    const element = h('li', { class: 'picker', role: 'group' });
    const item: Item = { element, type, limit, strict: strict.control, buttons: undefined, index };
    if (!readOnly) {
      item.buttons = {
        up: h('button', { type: 'button', class: 'secondary', 'data-write': true, onclick: () => move(item, -1, 'up') }, '↑ Up'),
        down: h('button', { type: 'button', class: 'secondary', 'data-write': true, onclick: () => move(item, 1, 'down') }, '↓ Down'),
        remove: h('button', { type: 'button', class: 'secondary', 'data-write': true, onclick: () => remove(item) }, 'Remove'),
      };
    }
    type.addEventListener('change', layout);
    append(element, [
      h(
        'div',
        { class: 'picker-fields' },
        field({ label: 'Picker type', path: `${path}.type`, control: type }),
        field({ label: 'Limit', path: `${path}.limit`, control: limit, hint: '0: no limit' }),
        strict.element,
      ),
      item.buttons === undefined ? null : h('div', { class: 'actions picker-moves' }, item.buttons.up, item.buttons.down, item.buttons.remove),
      h('p', { class: 'field-error', 'data-error-for': path }),
    ]);
    return item;
  };

  items = initial.map(build);
  let addButton: HTMLButtonElement | undefined;
  let adder: HTMLElement | null = null;
  if (!readOnly) {
    const choice = select(typeOptions, 'geodns');
    addButton = h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        'data-write': true,
        onclick: () => {
          const item = build({ type: choice.value, limit: choice.value === 'first_n' ? 1 : 0, strict: false }, items.length);
          items.push(item);
          layout();
          item.type.focus();
        },
      },
      'Add picker',
    );
    adder = h('div', { class: 'toolbar picker-add' }, field({ label: 'Picker to add', path: 'pickers', control: choice }), addButton);
  }
  layout();
  return {
    element: h('div', null, empty, list, adder, adder === null ? h('p', { class: 'field-error', 'data-error-for': 'pickers' }) : null),
    value: () =>
      items.map((item) => ({
        type: item.type.value,
        // A number input holds '' or a number; the API checks the range and says so next to it.
        limit: item.limit.value.trim() === '' ? 0 : Number(item.limit.value),
        strict: item.strict.checked,
      })),
  };
}
