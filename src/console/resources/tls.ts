// The resource's HTTPS certificate: none, managed (ACME), or the user's own PEM chain and key, typed
// or read from files. The private key is write-only in the API, so this section never shows one
// back: it says what the stored certificate covers and when it expires, as the API answers.
import { h, uniqueId, type Child } from '../dom.ts';
import { field, select } from '../components/field.ts';
import { utcTime, type Resource } from './types.ts';

export interface TlsSection {
  element: HTMLElement;
  /** The TLS members of the body: none at all keeps the stored certificate. */
  fields(): Record<string, string>;
}

const types: [value: string, label: string][] = [
  ['', 'None (HTTPS off)'],
  ['le', 'Managed certificate (ACME)'],
  ['custom', 'Own certificate'],
];

export function tlsSection(resource: Resource | undefined): TlsSection {
  const stored = resource?.ssl_type ?? '';
  const type = select(types, stored);
  const crt = pemArea('-----BEGIN CERTIFICATE-----');
  const key = pemArea('-----BEGIN PRIVATE KEY-----');
  const keeping = stored === 'custom' ? 'Leave empty to keep the stored one. ' : '';
  const custom = h(
    'div',
    { class: 'tls-custom' },
    field({ label: 'Certificate chain (PEM)', path: 'service_ssl_crt', control: crt, hint: `${keeping}The leaf first; it must cover the resource name.` }),
    fileInput('Certificate file', crt),
    field({
      label: 'Private key (PEM)',
      path: 'service_ssl_key',
      control: key,
      hint: `${keeping}Unencrypted RSA, EC or Ed25519; stored sealed and never shown again. A renewed certificate for the same key needs no key.`,
    }),
    fileInput('Private key file', key),
  );
  const showCustom = (): void => {
    custom.hidden = type.value !== 'custom';
  };
  type.addEventListener('change', showCustom);
  showCustom();

  const element = h(
    'div',
    { class: 'tls' },
    resource === undefined ? null : storedCertificate(resource),
    field({ label: 'HTTPS certificate', path: 'ssl_type', control: type, hint: 'A managed certificate is issued for the name and aliases once their DNS points at this service.' }),
    custom,
  );
  return {
    element,
    fields() {
      const chosen = type.value;
      if (chosen === 'custom') {
        const out: Record<string, string> = {};
        if (crt.value.trim() !== '') out['service_ssl_crt'] = crt.value;
        if (key.value.trim() !== '') out['service_ssl_key'] = key.value;
        // Nothing new for a stored custom certificate: the body leaves TLS out and the API keeps it.
        if (stored === 'custom' && Object.keys(out).length === 0) return {};
        return { ssl_type: 'custom', ...out };
      }
      return chosen === stored ? {} : { ssl_type: chosen };
    },
  };
}

function pemArea(placeholder: string): HTMLTextAreaElement {
  return h('textarea', { rows: 6, spellcheck: 'false', autocomplete: 'off', placeholder, class: 'pem' });
}

/** A file picker that fills `target` with the file's text. */
function fileInput(label: string, target: HTMLTextAreaElement): HTMLElement {
  const id = uniqueId('file');
  const control = h('input', { type: 'file', id, accept: '.pem,.crt,.cer,.key,.txt,application/x-pem-file' });
  control.addEventListener('change', () => {
    const file = control.files?.[0];
    if (file === undefined) return;
    void file.text().then((text) => {
      target.value = text;
      // A key read from a file stays in the textarea only until the form is saved or left.
      control.value = '';
    });
  });
  return h('div', { class: 'field' }, h('label', { for: id }, label), control);
}

function storedCertificate(resource: Resource): HTMLElement {
  const type = resource.ssl_type ?? '';
  if (type === '') return h('dl', { class: 'facts' }, h('dt', null, 'Stored certificate'), h('dd', null, 'none'));
  const expire = resource.service_ssl_expire;
  let expiry: Child;
  if (expire === 0) expiry = 'not issued yet';
  else {
    const days = Math.floor((expire * 1000 - Date.now()) / 86_400_000);
    expiry = h(
      'span',
      null,
      h('time', { datetime: new Date(expire * 1000).toISOString() }, utcTime(expire)),
      ' ',
      h('span', { class: days < 14 ? 'status status-off' : 'muted' }, days < 0 ? '(expired)' : `(in ${String(days)} days)`),
    );
  }
  const names = [resource.name, ...resource.aliases.map((a) => a.alias_data)];
  const covered = expire === 0 ? [] : [resource.name, ...resource.aliases.filter((a) => a.alias_ssl_expire > 0).map((a) => a.alias_data)];
  const uncovered = names.filter((n) => !covered.includes(n));
  return h(
    'dl',
    { class: 'facts' },
    h('dt', null, 'Stored certificate'),
    h('dd', null, types.find(([v]) => v === type)?.[1] ?? type),
    h('dt', null, 'Expires'),
    h('dd', { class: 'certificate-expiry' }, expiry),
    covered.length === 0 ? null : [h('dt', null, 'Covers'), h('dd', null, covered.join(', '))],
    covered.length === 0 || uncovered.length === 0 ? null : [h('dt', null, 'Does not cover'), h('dd', null, uncovered.join(', '))],
  );
}
