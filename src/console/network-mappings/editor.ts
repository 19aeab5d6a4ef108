// One network mapping as a form: its name (fixed once created: the API cannot rename one) and its
// entries, each a fieldset of tags, IPv4 and IPv6 networks typed one a line. The API names a bad
// network by its index (`mapping[1].cidr4[3]`); the message lands beside the list, saying the line.
import { h, uniqueId } from '../dom.ts';
import { field, input } from '../components/field.ts';
import { formError, onSubmit } from '../components/form.ts';
import { lineList, placeLineErrors, type LineList } from '../components/line-list.ts';
import { removeButton, repeater, type Row } from '../components/repeater.ts';
import type { MappingEntry, NetworkMapping } from './model.ts';

export interface MappingEditorOptions {
  /** Undefined for a new mapping. */
  mapping: NetworkMapping | undefined;
  readOnly: boolean;
  /** Sends the body; its errors are shown in the form. */
  save(body: { name?: string; mapping: MappingEntry[] }): Promise<void>;
}

export function mappingEditor(options: MappingEditorOptions): HTMLFormElement {
  const existing = options.mapping;
  const readOnly = options.readOnly;
  const name = input({ value: existing?.name ?? '', autocomplete: 'off', spellcheck: 'false', placeholder: 'offices', readonly: existing !== undefined || readOnly });
  // The line lists of the rows shown, by row: a re-render replaces them.
  let lists: LineList[][] = [];

  const entryRow = (entry: MappingEntry, i: number, remove: (() => void) | undefined): Row<MappingEntry> => {
    const at = `mapping[${String(i)}]`;
    const label = `Entry ${String(i + 1)}`;
    const tags = lineList({ label: 'Tags', path: `${at}.tags`, entries: entry.tags, hint: 'One a line, up to 32.', rows: 3, readOnly });
    const cidr4 = lineList({ label: 'IPv4 networks', path: `${at}.cidr4`, entries: entry.cidr4, hint: 'One address or CIDR a line (192.0.2.0/24).', rows: 4, readOnly });
    const cidr6 = lineList({ label: 'IPv6 networks', path: `${at}.cidr6`, entries: entry.cidr6, hint: 'One address or CIDR a line (2001:db8::/32).', rows: 4, readOnly });
    lists[i] = [tags, cidr4, cidr6];
    return {
      element: h('fieldset', { class: 'repeat-row mapping-entry' }, h('legend', null, label), tags.element, cidr4.element, cidr6.element, removeButton(label.toLowerCase(), remove)),
      value: () => ({ tags: tags.entries(), cidr4: cidr4.entries(), cidr6: cidr6.entries() }),
      first: tags.element.querySelector('textarea') ?? tags.element,
    };
  };
  const entries = repeater<MappingEntry>({
    path: 'mapping',
    items: existing?.mapping ?? [{ tags: [], cidr4: [], cidr6: [] }],
    blank: () => ({ tags: [], cidr4: [], cidr6: [] }),
    row: (entry, i, remove) => {
      if (i === 0) lists = [];
      return entryRow(entry, i, remove);
    },
    addLabel: 'Add entry',
    empty: 'No entries.',
    readOnly,
  });

  const entriesTitle = uniqueId('entries');
  const form = h(
    'form',
    { class: 'mapping-editor', novalidate: true },
    h(
      'div',
      { class: 'card' },
      field({
        label: 'Name',
        path: 'name',
        control: name,
        hint: existing === undefined ? '1–64 letters, digits, _, . or -; it cannot be changed later.' : 'A mapping\'s name cannot be changed.',
      }),
    ),
    h('section', { class: 'card', 'aria-labelledby': entriesTitle }, h('h2', { id: entriesTitle }, 'Entries'), h('p', { class: 'muted' }, 'Each entry gives its tags to the networks it lists.'), entries.element),
    formError(),
    readOnly ? null : h('div', { class: 'actions' }, h('button', { type: 'submit', 'data-write': true }, existing === undefined ? 'Create mapping' : 'Save mapping')),
  );
  onSubmit(form, async () => {
    const mapping = entries.values();
    try {
      await options.save(existing === undefined ? { name: name.value.trim(), mapping } : { mapping });
    } catch (error) {
      throw placeLineErrors(error, lists.slice(0, mapping.length).flat());
    }
  });
  return form;
}
