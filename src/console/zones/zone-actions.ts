// Enabling, disabling and deleting a zone: the same buttons in the list's rows and on the zone page.
// Failures go to a notice, since these buttons belong to no form.
import type { Api } from '../api.ts';
import { h } from '../dom.ts';
import { confirmAction } from '../components/dialog.ts';
import { run } from '../components/form.ts';
import { notify } from '../components/notice.ts';
import { zonePath, type Zone } from './model.ts';

/** `named`: the button's accessible name says which zone when several share a page. */
export function toggleButton(api: Api, zone: Zone, options: { named: boolean; onDone: () => void }): HTMLButtonElement {
  const action = zone.enabled ? 'Disable' : 'Enable';
  const button: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      'data-write': true,
      'aria-label': options.named ? `${action} ${zone.name}` : null,
      title: zone.enabled ? 'Stop answering DNS queries for this zone' : 'Answer DNS queries for this zone again',
      onclick: () =>
        void run(button, async () => {
          await api.patch(zonePath(zone.name, zone.enabled ? '/disable' : '/enable'), {});
          notify(`${zone.name} ${zone.enabled ? 'disabled' : 'enabled'}`);
          options.onDone();
        }),
    },
    options.named ? action : `${action} zone`,
  );
  return button;
}

export function deleteButton(api: Api, zone: Zone, options: { named: boolean; onDone: () => void }): HTMLButtonElement {
  const button: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      class: 'danger',
      'data-write': true,
      'aria-label': options.named ? `Delete ${zone.name}` : null,
      onclick: () =>
        void run(button, async () => {
          const sure = await confirmAction(`Delete the zone ${zone.name} with all its record sets? DNS stops answering for it at once.`, 'Delete');
          if (!sure) return;
          await api.delete(zonePath(zone.name));
          notify(`${zone.name} deleted`);
          options.onDone();
        }),
    },
    options.named ? 'Delete' : 'Delete zone',
  );
  return button;
}
