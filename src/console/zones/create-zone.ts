// Creating a zone: the name is all it takes; the SOA values wait in a closed <details> with the
// service's defaults. The API judges the name (reserved_name for `com`, conflict, another account's)
// and its message shows beside the field.
import { ApiError, type Api } from '../api.ts';
import { h } from '../dom.ts';
import { field, input } from '../components/field.ts';
import { formError, onSubmit } from '../components/form.ts';
import { notify } from '../components/notice.ts';
import { soaInputs, soaKeys } from './soa-fields.ts';

export function createZoneForm(api: Api, onCreated: (name: string) => void): HTMLElement {
  const name = input({ name: 'name', required: true, autocomplete: 'off', spellcheck: 'false', placeholder: 'example.com' });
  const soa = soaInputs({ withSerial: false, readOnly: false });
  const details = h('details', { class: 'zone-soa' }, h('summary', null, 'SOA settings (optional)'), h('div', { class: 'form-grid' }, soa.elements));
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'create-zone-title', 'data-write': true },
    h('h2', { id: 'create-zone-title' }, 'Create a zone'),
    field({ label: 'Name', path: 'name', control: name, hint: 'The domain, e.g. example.com; the service answers for it once it is delegated here' }),
    details,
    formError(),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Create zone')),
  );
  onSubmit(form, async () => {
    try {
      const answer = await api.post<{ id: number; warnings?: string[] }>('/dns/v2/zones', { name: name.value.trim(), ...soa.body() });
      for (const warning of answer.warnings ?? []) notify(warning, 'error');
    } catch (error) {
      // A message about an SOA value must be visible, and its field focusable.
      if (error instanceof ApiError && Object.keys(error.fields).some((path) => soaKeys.includes(path))) details.open = true;
      throw error;
    }
    notify(`Zone ${name.value.trim()} created`);
    onCreated(name.value.trim());
  });
  return form;
}
