// Choosing several codes from a known list (countries, continents): type a code or a name, pick
// from the suggestions, and each choice shows as a removable chip. Codes the list does not know are
// still accepted as typed: the API is the one to judge them, and says so next to the field.
import { continents, countries } from 'countries-list';
import { h, replace, uniqueId } from '../dom.ts';

export type Choice = [code: string, name: string];

export const countryChoices: Choice[] = Object.entries(countries)
  .map(([code, country]): Choice => [code, country.name])
  .sort((a, b) => a[1].localeCompare(b[1]));

export const continentChoices: Choice[] = Object.entries(continents).map(([code, name]): Choice => [code, name]);

export interface CodePicker {
  element: HTMLElement;
  value(): string[];
}

export function codePicker(options: { label: string; path: string; choices: Choice[]; value: string[]; readOnly?: boolean }): CodePicker {
  const names = new Map(options.choices.map(([code, name]) => [code, name]));
  const chosen: string[] = [...options.value];
  const id = uniqueId('codes');
  const listId = `${id}-list`;
  const entry = h('input', { type: 'text', id, list: listId, placeholder: 'Type a code or a name, then Enter', autocomplete: 'off', disabled: options.readOnly === true });
  entry.dataset.field = options.path;
  const chips = h('ul', { class: 'chips', 'aria-label': `${options.label}: chosen` });

  const render = (): void => {
    replace(
      chips,
      chosen.map((code) =>
        h(
          'li',
          { class: 'chip' },
          `${code}${names.has(code) ? ` — ${names.get(code) ?? ''}` : ''}`,
          options.readOnly === true ? null : h('button', { type: 'button', class: 'link', 'aria-label': `Remove ${code}`, onclick: () => remove(code) }, '×'),
        ),
      ),
    );
  };
  const remove = (code: string): void => {
    chosen.splice(chosen.indexOf(code), 1);
    render();
    entry.focus();
  };
  const add = (): void => {
    const typed = entry.value.trim();
    if (typed === '') return;
    // "DE — Germany" from the suggestions, "de", or "germany"
    const byName = options.choices.find(([, name]) => name.toLowerCase() === typed.toLowerCase());
    const code = (byName?.[0] ?? typed.split(' ')[0] ?? '').toUpperCase();
    if (code !== '' && !chosen.includes(code)) chosen.push(code);
    entry.value = '';
    render();
  };
  entry.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      add();
    }
  });
  // Picking a suggestion with the mouse fills the input without a key press.
  entry.addEventListener('change', add);
  render();
  const element = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, options.label),
    entry,
    h('datalist', { id: listId }, ...options.choices.map(([code, name]) => h('option', { value: `${code} — ${name}` }))),
    chips,
    h('p', { class: 'field-error', 'data-error-for': options.path }),
  );
  return { element, value: () => [...chosen] };
}
