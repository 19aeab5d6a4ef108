// The zone's SOA values (PUT /dns/v2/zones/{name}). Absent members keep their value, so the form
// sends what it shows, less an untouched serial. A serial the service could not use comes back as a
// warning, shown in the form until the next save.
import type { Api } from '../api.ts';
import { h, replace } from '../dom.ts';
import { formError, onSubmit } from '../components/form.ts';
import { notify } from '../components/notice.ts';
import { loadZone, zonePath, type Zone } from './model.ts';
import { soaInputs } from './soa-fields.ts';

export function settingsSection(api: Api, zone: Zone, options: { readOnly: boolean; onSaved: (zone: Zone) => void }): HTMLElement {
  const soa = soaInputs({ zone, withSerial: true, readOnly: options.readOnly });
  const warnings = h('div', { class: 'zone-warnings', role: 'status' });
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'zone-settings-title' },
    h('h2', { id: 'zone-settings-title' }, 'SOA settings'),
    options.readOnly ? h('p', { class: 'muted' }, 'Your role may read these values, not change them.') : null,
    h('div', { class: 'form-grid' }, soa.elements),
    warnings,
    formError(),
    options.readOnly ? null : h('div', { class: 'actions' }, h('button', { type: 'submit', 'data-write': true }, 'Save settings')),
  );
  if (options.readOnly) return form;
  onSubmit(form, async () => {
    replace(warnings);
    const answer = await api.put<{ warnings?: string[] }>(zonePath(zone.name), soa.body());
    const said = answer.warnings ?? [];
    if (said.length > 0) replace(warnings, h('p', null, 'Saved, with a warning:'), h('ul', null, said.map((w) => h('li', null, w))));
    // Told once the form shows what was saved (the serial it moved on to), not before.
    const fresh = await loadZone(api, zone.name);
    soa.fill(fresh);
    options.onSaved(fresh);
    notify('Settings saved');
  });
  return form;
}
