// A labelled form control with its own error line. The API's validation errors name members by JSON
// path (`resource_records[0].content`); a control carrying that path in data-field shows its message.
import { h, uniqueId, type Child } from '../dom.ts';

export interface FieldOptions {
  label: string;
  /** The API's JSON path of the value, for its validation message. */
  path: string;
  control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  hint?: string;
}

export function field(options: FieldOptions): HTMLElement {
  const id = options.control.id === '' ? uniqueId('field') : options.control.id;
  const errorId = `${id}-error`;
  options.control.id = id;
  options.control.dataset.field = options.path;
  const described = [errorId];
  let hint: Child = null;
  if (options.hint !== undefined) {
    hint = h('p', { class: 'field-hint', id: `${id}-hint` }, options.hint);
    described.push(`${id}-hint`);
  }
  options.control.setAttribute('aria-describedby', described.join(' '));
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, options.label),
    options.control,
    hint,
    h('p', { class: 'field-error', id: errorId, 'data-error-for': options.path }),
  );
}

export function input(props: Record<string, string | number | boolean | undefined> = {}): HTMLInputElement {
  return h('input', { type: 'text', ...props });
}

export function select(options: [value: string, label: string][], value: string, props: Record<string, string | boolean> = {}): HTMLSelectElement {
  return h('select', props, ...options.map(([v, label]) => h('option', { value: v, selected: v === value }, label)));
}

export function checkbox(label: string, checked: boolean, path: string): { element: HTMLElement; control: HTMLInputElement } {
  const control = h('input', { type: 'checkbox', checked, id: uniqueId('check') });
  control.dataset.field = path;
  return {
    control,
    element: h('div', { class: 'field field-check' }, control, h('label', { for: control.id }, label), h('p', { class: 'field-error', 'data-error-for': path })),
  };
}

/**
 * Shows each message next to the control of its path (or the closest parent path shown); answers the
 * messages no control took, for the form's own error line.
 */
export function showFieldErrors(form: HTMLElement, fields: Record<string, string>): string[] {
  clearFieldErrors(form);
  const unplaced: string[] = [];
  for (const [path, message] of Object.entries(fields)) {
    const slot = errorSlot(form, path);
    if (slot === undefined) {
      unplaced.push(`${path}: ${message}`);
      continue;
    }
    slot.textContent = slot.textContent === '' ? message : `${slot.textContent}; ${message}`;
    const control = form.querySelector(`[data-field="${CSS.escape(slot.dataset.errorFor ?? '')}"]:not(.field-error)`);
    control?.setAttribute('aria-invalid', 'true');
  }
  const first = form.querySelector('[aria-invalid="true"]');
  if (first instanceof HTMLElement) first.focus();
  return unplaced;
}

export function clearFieldErrors(form: HTMLElement): void {
  for (const slot of form.querySelectorAll('.field-error')) slot.textContent = '';
  for (const control of form.querySelectorAll('[aria-invalid]')) control.removeAttribute('aria-invalid');
}

function errorSlot(form: HTMLElement, path: string): HTMLElement | undefined {
  // resource_records[0].meta.countries → resource_records[0].meta → resource_records[0] → resource_records
  let p = path;
  for (;;) {
    const slot = form.querySelector(`[data-error-for="${CSS.escape(p)}"]`);
    if (slot instanceof HTMLElement) return slot;
    const shorter = p.replace(/(\.[^.[\]]+|\[\d+\])$/, '');
    if (shorter === p || shorter === '') return undefined;
    p = shorter;
  }
}
