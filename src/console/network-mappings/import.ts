// Importing network mappings from YAML (POST /dns/v2/network-mappings/import): documents separated
// by `---`, each `name:` and `mapping:`, pasted or read from a file into the text area so what is
// sent stays visible. All are created or none; the API names a bad one `documents[<i>]…`, which the
// form shows as "document <i + 1>".
import { ApiError, type Api } from '../api.ts';
import { h } from '../dom.ts';
import { field } from '../components/field.ts';
import { formError, onSubmit } from '../components/form.ts';
import { notify } from '../components/notice.ts';
import { readFileInto } from '../components/file-text.ts';
import { mappingsPath } from './model.ts';

const example = `name: offices
mapping:
  - tags: [office]
    cidr4: [192.0.2.0/24]
    cidr6: [2001:db8::/48]
---
name: partners
mapping:
  - tags: [partner]
    cidr4: [198.51.100.0/24]`;

export function importForm(api: Api, onImported: () => void): HTMLElement {
  const content = h('textarea', { rows: 10, spellcheck: 'false', placeholder: example });
  const file = h('input', { type: 'file', accept: '.yaml,.yml,.txt,text/plain,application/yaml' });
  readFileInto(file, content);
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'mapping-import-title', 'data-write': true },
    h('h2', { id: 'mapping-import-title' }, 'Import from YAML'),
    h('p', { class: 'muted' }, 'Documents separated by ---, each with name: and mapping:. Every mapping is created, or none when one is refused; a name the account already has is refused.'),
    field({ label: 'YAML', path: 'body', control: content }),
    field({ label: 'Or read it from a file', path: 'file', control: file }),
    formError(),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Import')),
  );
  onSubmit(form, async () => {
    if (content.value.trim() === '') throw new Error('Paste YAML or choose a file first.');
    try {
      await api.postText(`${mappingsPath}/import`, content.value);
    } catch (error) {
      throw byDocument(error);
    }
    notify('Network mappings imported');
    onImported();
  });
  return form;
}

/** `documents[1].mapping[0].cidr4[0]` → `document 2: mapping[0].cidr4[0]`. */
function byDocument(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const fields: Record<string, string> = {};
  for (const [path, message] of Object.entries(error.fields)) {
    const found = /^documents\[(\d+)\]\.?(.*)$/.exec(path);
    fields[found === null ? path : `document ${String(Number(found[1]) + 1)}${found[2] === '' ? '' : `, ${found[2] ?? ''}`}`] = message;
  }
  return new ApiError(error.status, error.code, error.message, fields, error.retryAfter);
}
