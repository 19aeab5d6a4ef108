// DNSSEC of a zone: on or off (PATCH .../dnssec), and while on the DS record and key the registrar
// asks for, ready to copy. Turning it off while the parent still has the DS makes the zone fail to
// validate, so the confirmation says to remove the DS first.
import { describeError, type Api } from '../api.ts';
import { h, replace } from '../dom.ts';
import { confirmAction } from '../components/dialog.ts';
import { notify } from '../components/notice.ts';
import { formError, run } from '../components/form.ts';
import { copyBlock } from '../components/copy-block.ts';
import { zonePath, type Dnssec, type Zone } from './model.ts';

export async function dnssecSection(api: Api, zone: Zone, options: { canWrite: boolean; onChanged: () => void }): Promise<HTMLElement> {
  let key: Dnssec | undefined;
  let problem: string | undefined;
  if (zone.dnssec_enabled) {
    try {
      key = await api.get<Dnssec>(zonePath(zone.name, '/dnssec'));
    } catch (error) {
      problem = describeError(error);
    }
  }
  const section = h('section', { class: 'card zone-dnssec', 'aria-labelledby': 'zone-dnssec-title' });
  const toggle = async (enabled: boolean): Promise<void> => {
    if (!enabled) {
      const sure = await confirmAction(
        `Turn DNSSEC off for ${zone.name}? Remove the DS record at your registrar first and wait for its TTL to pass, or resolvers that validate will fail to resolve the zone.`,
        'Turn off',
      );
      if (!sure) return;
    }
    await api.patch<Dnssec>(zonePath(zone.name, '/dnssec'), { enabled });
    notify(enabled ? `DNSSEC is on for ${zone.name}: give the DS record to your registrar` : `DNSSEC is off for ${zone.name}`);
    options.onChanged();
  };
  const button = options.canWrite
    ? h(
        'button',
        { type: 'button', class: zone.dnssec_enabled ? 'secondary' : null, 'data-write': true, onclick: () => void run(section, () => toggle(!zone.dnssec_enabled)) },
        zone.dnssec_enabled ? 'Disable DNSSEC' : 'Enable DNSSEC',
      )
    : null;
  replace(
    section,
    h('h2', { id: 'zone-dnssec-title' }, 'DNSSEC'),
    h(
      'p',
      null,
      'DNSSEC is ',
      h('span', { class: `status ${zone.dnssec_enabled ? 'status-on' : 'status-off'}` }, zone.dnssec_enabled ? 'on' : 'off'),
      zone.dnssec_enabled ? ': answers are signed.' : ': answers are not signed.',
    ),
    zone.dnssec_enabled
      ? null
      : h('p', { class: 'muted' }, 'Turning it on creates a signing key (ECDSA P-256, algorithm 13). Then give the DS record shown here to your registrar, which publishes it in the parent zone.'),
    problem === undefined ? null : h('p', { role: 'alert', class: 'form-error' }, problem),
    key === undefined ? null : keyDetails(zone.name, key),
    formError(),
    button === null ? null : h('div', { class: 'actions' }, button),
  );
  return section;
}

function keyDetails(zone: string, key: Dnssec): HTMLElement[] {
  // Some registrars take the DNSKEY instead of the DS: flags, protocol 3, algorithm, public key.
  const dnskey = `${zone}. IN DNSKEY ${key.flags} 3 ${key.algorithm} ${key.public_key}`;
  return [
    h('h3', null, 'DS record for your registrar'),
    copyBlock('DS record', key.ds),
    h(
      'dl',
      { class: 'dnssec-key' },
      h('dt', null, 'Key tag'),
      h('dd', { class: 'mono' }, key.key_tag),
      h('dt', null, 'Algorithm'),
      h('dd', { class: 'mono' }, `${key.algorithm} (${key.key_type})`),
      h('dt', null, 'Digest type'),
      h('dd', { class: 'mono' }, `${key.digest_type} (${key.digest_algorithm})`),
      h('dt', null, 'Digest'),
      h('dd', { class: 'mono zone-selectable' }, key.digest),
      h('dt', null, 'Flags'),
      h('dd', { class: 'mono' }, `${key.flags} (key signing and zone signing)`),
    ),
    h('h3', null, 'DNSKEY, for registrars that ask for the key'),
    copyBlock('DNSKEY record', dnskey),
  ];
}
