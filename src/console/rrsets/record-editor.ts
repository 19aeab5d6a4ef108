// One resource record in the editor: its content as the type's fields, enabled or not, and its meta.
import { h, replace, uniqueId } from '../dom.ts';
import { checkbox, field, input } from '../components/field.ts';
import type { ContentValue, Meta, ResourceRecord } from './model.ts';
import { renumber } from './paths.ts';
import { recordMetaEditor, type MetaEditor } from './record-meta.ts';
import { contentOf, fieldValues, fieldsOf, type ContentField } from './record-types.ts';

export interface RecordEditor {
  element: HTMLFieldSetElement;
  /** The controls of another type's fields (an RRset being created changes type), emptied. */
  setType(type: string): void;
  /** Its place in the RRset: paths and labels follow. */
  setIndex(index: number): void;
  /** The first control, to move focus to. */
  firstControl(): HTMLElement | null;
  value(): { content: ContentValue[]; enabled: boolean; meta: Meta };
}

export interface RecordEditorOptions {
  type: string;
  index: number;
  record: ResourceRecord | undefined;
  readOnly: boolean;
  onRemove: (editor: RecordEditor) => void;
}

export function recordEditor(options: RecordEditorOptions): RecordEditor {
  let type = options.type;
  let index = options.index;
  const base = (): string => `resource_records[${index}]`;
  const legend = h('legend', null);
  const contentArea = h('div', { class: 'record-content' });
  let controls: (HTMLInputElement | HTMLTextAreaElement)[] = [];

  const buildContent = (values: string[]): void => {
    const fields = fieldsOf(type);
    // One field: the API's `content` path is that field's. Several: each has its own path, and the
    // save step sends the API's message to the field it names; a message about the whole content
    // lands on the group.
    const single = fields.length === 1;
    controls = fields.map((f, i) => contentControl(f, values[i] ?? ''));
    const group = h(
      'div',
      single ? { class: 'form-grid' } : { class: 'form-grid', role: 'group', 'aria-label': `Content of record ${index + 1}`, tabindex: -1, 'data-field': `${base()}.content` },
      ...fields.map((f, i) => {
        const control = controls[i] ?? input();
        const path = single ? `${base()}.content` : `${base()}.content[${i}]`;
        const wide = f.kind === 'long-text' || f.kind === 'params';
        const element = field({ label: f.label, path, control, ...(f.hint === undefined ? {} : { hint: f.hint }) });
        if (wide) element.classList.add('field-wide');
        return element;
      }),
    );
    const lists = fields.map((f, i) => suggestionList(f, controls[i] ?? group));
    replace(contentArea, group, lists, single ? null : h('p', { class: 'field-error', 'data-error-for': `${base()}.content` }));
  };

  buildContent(options.record === undefined ? [] : fieldValues(type, options.record.content));
  const enabled = checkbox('Enabled (served)', options.record?.enabled ?? true, `${base()}.enabled`);
  const meta: MetaEditor = recordMetaEditor(options.record?.meta ?? {}, `${base()}.meta`, options.readOnly);
  const remove = options.readOnly
    ? null
    : h('button', { type: 'button', class: 'secondary', 'data-write': true, onclick: () => options.onRemove(editor) }, 'Remove record');
  const element = h(
    'fieldset',
    { class: 'record' },
    legend,
    contentArea,
    h('div', { class: 'record-line' }, enabled.element, remove),
    meta.element,
    h('p', { class: 'field-error', 'data-error-for': base() }),
  );

  const label = (): void => {
    legend.textContent = `Record ${index + 1}`;
    remove?.setAttribute('aria-label', `Remove record ${index + 1}`);
    contentArea.querySelector('[role="group"]')?.setAttribute('aria-label', `Content of record ${index + 1}`);
  };
  label();

  const editor: RecordEditor = {
    element,
    setType(next) {
      type = next;
      buildContent([]);
    },
    setIndex(next) {
      renumber(element, base(), `resource_records[${next}]`);
      index = next;
      label();
    },
    firstControl: () => controls[0] ?? null,
    value: () => ({ content: contentOf(type, controls.map((c) => c.value)), enabled: enabled.control.checked, meta: meta.value() }),
  };
  return editor;
}

function contentControl(f: ContentField, value: string): HTMLInputElement | HTMLTextAreaElement {
  if (f.kind === 'long-text') return h('textarea', { rows: 3, value });
  if (f.kind === 'number') return input({ type: 'number', min: f.min, max: f.max, value, inputmode: 'numeric' });
  return input({ value, placeholder: f.placeholder, autocomplete: 'off', spellcheck: f.kind === 'text' ? undefined : 'false' });
}

/** Suggestions for a field (CAA tags), tied to its control by `list`. */
function suggestionList(f: ContentField, control: HTMLElement): HTMLDataListElement | null {
  if (f.suggestions === undefined) return null;
  const id = uniqueId('suggestions');
  control.setAttribute('list', id);
  return h('datalist', { id }, ...f.suggestions.map((s) => h('option', { value: s })));
}
