// The whole resource document as one form. PUT replaces the document (absent lists become empty,
// absent settings take their defaults), so the form holds every member of the contract and sends
// them all back; only TLS is left out when unchanged, since the API cannot read the key back.
import { h, uniqueId, type Child } from '../dom.ts';
import { checkbox, field, input, select } from '../components/field.ts';
import { codePicker, countryChoices } from '../components/code-picker.ts';
import { formError, onSubmit } from '../components/form.ts';
import { lineList, placeLineErrors } from '../components/line-list.ts';
import { removeButton, repeater, type Row } from '../components/repeater.ts';
import { tlsSection } from './tls.ts';
import type { OriginMode, Resource } from './types.ts';

// What the rows send: numbers as typed when they are not whole numbers, so the API names the field.
interface OriginBody {
  origin_data: string;
  origin_weight: number | string;
  origin_mode: OriginMode;
}

interface RuleBody {
  method: string;
  path: string;
  value: number | string;
  test_cookie: boolean;
}

export interface EditorOptions {
  /** Undefined for a new resource. */
  resource: Resource | undefined;
  readOnly: boolean;
  /** Sends the body; its errors are shown in the form. */
  save(body: Record<string, unknown>): Promise<void>;
}

const ruleMethods = ['*', 'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const originModes: [OriginMode, string][] = [
  ['primary', 'Primary'],
  ['backup', 'Backup'],
  ['down', 'Down'],
];
const geoModes: [string, string][] = [
  ['0', 'Off: every country passes'],
  ['1', 'Every country except those listed'],
  ['2', 'Only the countries listed'],
];

/** A whole number as a number; anything else as typed, for the API to judge and name. */
function integerOrText(text: string): number | string {
  return /^\s*-?\d+\s*$/.test(text) ? Number(text) : text;
}

/** A 0/1 switch with a line saying what it does. */
function toggle(label: string, on: boolean, path: string, hint?: string): { element: HTMLElement; control: HTMLInputElement } {
  const made = checkbox(label, on, path);
  if (hint !== undefined) {
    const hintId = `${made.control.id}-hint`;
    made.control.setAttribute('aria-describedby', hintId);
    made.element.append(h('p', { class: 'field-hint', id: hintId }, hint));
  }
  return made;
}

const flag = (control: HTMLInputElement): number => (control.checked ? 1 : 0);

function section(title: string, ...children: Child[]): HTMLElement {
  const id = uniqueId('section');
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

function aliasRow(alias: string, i: number, remove: (() => void) | undefined): Row<string> {
  const control = input({ value: alias, autocomplete: 'off', spellcheck: 'false' });
  return {
    element: h('div', { class: 'alias-row' }, field({ label: `Alias ${String(i + 1)}`, path: `aliases[${String(i)}].alias_data`, control }), removeButton(`alias ${String(i + 1)}`, remove)),
    value: () => control.value.trim(),
    first: control,
  };
}

function originRow(origin: OriginBody, i: number, remove: (() => void) | undefined): Row<OriginBody> {
  const at = `origins[${String(i)}]`;
  const address = input({ value: origin.origin_data, autocomplete: 'off', spellcheck: 'false', placeholder: '192.0.2.10:8080' });
  const weight = input({ type: 'number', min: 1, max: 100, value: String(origin.origin_weight) });
  const mode = select(originModes, origin.origin_mode);
  const label = `Origin ${String(i + 1)}`;
  return {
    element: h(
      'fieldset',
      { class: 'repeat-row' },
      h('legend', null, label),
      field({ label: 'Address', path: `${at}.origin_data`, control: address, hint: 'IP address or host name, optionally :port' }),
      field({ label: 'Weight', path: `${at}.origin_weight`, control: weight, hint: '1–100' }),
      field({ label: 'Mode', path: `${at}.origin_mode`, control: mode, hint: 'backup: when every primary fails; down: not used' }),
      removeButton(label.toLowerCase(), remove),
    ),
    value: () => ({ origin_data: address.value.trim(), origin_weight: integerOrText(weight.value), origin_mode: mode.value as OriginMode }),
    first: address,
  };
}

function ruleRow(rule: RuleBody, i: number, remove: (() => void) | undefined): Row<RuleBody> {
  const at = `rate_limier_rules[${String(i)}]`;
  const method = select(ruleMethods.map((m) => [m, m === '*' ? 'Any (*)' : m]), rule.method.toUpperCase());
  const path = input({ value: rule.path, autocomplete: 'off', spellcheck: 'false', placeholder: '/login' });
  const value = input({ type: 'number', min: 0, max: 100000, value: String(rule.value) });
  const cookie = checkbox('Cookie challenge', rule.test_cookie, `${at}.test_cookie`);
  const label = `Rate rule ${String(i + 1)}`;
  return {
    element: h(
      'fieldset',
      { class: 'repeat-row' },
      h('legend', null, label),
      field({ label: 'Method', path: `${at}.method`, control: method }),
      field({ label: 'Path', path: `${at}.path`, control: path, hint: '* matches anything' }),
      field({ label: 'Requests per second', path: `${at}.value`, control: value, hint: 'per client address; 0: unlimited' }),
      cookie.element,
      removeButton(label.toLowerCase(), remove),
    ),
    value: () => ({ method: method.value, path: path.value.trim(), value: integerOrText(value.value), test_cookie: cookie.control.checked }),
    first: method,
  };
}

export function resourceEditor(options: EditorOptions): HTMLFormElement {
  const r = options.resource;
  const readOnly = options.readOnly;
  const on = (value: number | undefined, fallback: number): boolean => (value ?? fallback) === 1;

  const name = input({ value: r?.name ?? '', autocomplete: 'off', spellcheck: 'false', required: true, placeholder: 'shop.example.com' });
  const enable = toggle('Serve this resource', on(r?.service_enable, 1), 'service_enable', 'Off: the proxy stops serving its names.');
  const aliases = repeater<string>({
    path: 'aliases',
    items: r?.aliases.map((a) => a.alias_data) ?? [],
    blank: () => '',
    row: aliasRow,
    addLabel: 'Add alias',
    empty: 'No aliases.',
    readOnly,
  });

  const origins = repeater<OriginBody>({
    path: 'origins',
    // A new resource starts with the one origin almost every resource has.
    items: r?.origins ?? [{ origin_data: '', origin_weight: 1, origin_mode: 'primary' }],
    blank: () => ({ origin_data: '', origin_weight: 1, origin_mode: 'primary' }),
    row: originRow,
    addLabel: 'Add origin',
    empty: 'No origins: the resource is not served until it has one.',
    readOnly,
  });
  const iphash = toggle('Sticky balancing', on(r?.service_iphash, 0), 'service_iphash', 'One client address always goes to the same origin.');
  const https2http = toggle('Plain HTTP to the origins', on(r?.service_https2http, 0), 'service_https2http', 'Also for clients that came over HTTPS.');

  const tls = tlsSection(r);
  const redirect = toggle('Redirect HTTP to HTTPS', r?.is_redirect_to_https_enabled ?? false, 'is_redirect_to_https_enabled');
  const hsts = toggle('HSTS', on(r?.service_hsts, 0), 'service_hsts', 'Strict-Transport-Security on HTTPS answers.');
  const http2 = toggle('HTTP/2', on(r?.service_http2, 1), 'service_http2', 'Offered to clients over HTTPS.');
  const wwwredir = toggle('Redirect www to the name', on(r?.service_wwwredir, 0), 'service_wwwredir', 'www.<name> answers with a redirect to <name>.');

  const wafMode = r !== undefined && r.service_waf !== 'off' ? ` (the operator runs it in ${r.service_waf} mode)` : '';
  const waf = toggle('WAF', r?.is_waf_enabled ?? false, 'is_waf_enabled', `Filters requests that look like attacks${wafMode}.`);
  const bot = toggle('Bot protection', (r?.service_botprotect ?? 0) !== 0, 'service_botprotect', 'Clients pass a JavaScript challenge before reaching the origins.');
  const methods = input({ value: r?.service_methods ?? '', autocomplete: 'off', spellcheck: 'false', placeholder: 'GET, POST' });
  const rules = repeater<RuleBody>({
    path: 'rate_limier_rules',
    items: r?.rate_limier_rules ?? [],
    blank: () => ({ method: '*', path: '/*', value: 10, test_cookie: false }),
    row: ruleRow,
    addLabel: 'Add rate rule',
    empty: 'No rate rules.',
    readOnly,
  });

  const blacklist = lineList({ label: 'Blacklist', path: 'blacklists', entries: r?.blacklists.map((b) => b.blacklist_data) ?? [], hint: 'One address or CIDR a line (203.0.113.0/24); refused with 403.' });
  const whitelist = lineList({ label: 'Whitelist', path: 'whitelists', entries: r?.whitelists.map((w) => w.whitelist_data) ?? [], hint: 'One address or CIDR a line; these skip every other check.' });
  const globalWhitelist = toggle('Operator whitelist', on(r?.service_global_whitelist, 0), 'service_global_whitelist', "The service operator's whitelist passes every check too.");

  const geoMode = select(geoModes, String(r?.service_geoip_mode ?? 0));
  const countries = codePicker({
    label: 'Countries',
    path: 'service_geoip_list',
    choices: countryChoices,
    value: (r?.service_geoip_list ?? '').split(',').filter((c) => c !== ''),
    readOnly,
  });

  const cdn = toggle('CDN', on(r?.service_cdn, 0), 'service_cdn');
  const cdnHost = input({ value: r?.service_cdn_host ?? '', autocomplete: 'off', spellcheck: 'false' });
  const cdnProxyHost = input({ value: r?.service_cdn_proxy_host ?? '', autocomplete: 'off', spellcheck: 'false' });
  const stream = toggle('Stream', on(r?.service_stream, 0), 'service_stream');

  const body = (): Record<string, unknown> => ({
    name: name.value.trim(),
    aliases: aliases.values().map((alias_data) => ({ alias_data })),
    origins: origins.values(),
    rate_limier_rules: rules.values(),
    blacklists: blacklist.entries().map((blacklist_data) => ({ blacklist_data })),
    whitelists: whitelist.entries().map((whitelist_data) => ({ whitelist_data })),
    is_waf_enabled: waf.control.checked,
    is_redirect_to_https_enabled: redirect.control.checked,
    service_enable: flag(enable.control),
    service_https2http: flag(https2http.control),
    service_http2: flag(http2.control),
    service_iphash: flag(iphash.control),
    service_wwwredir: flag(wwwredir.control),
    service_hsts: flag(hsts.control),
    service_botprotect: bot.control.checked ? 4 : 0,
    service_geoip_mode: Number(geoMode.value),
    service_geoip_list: countries.value().join(','),
    service_methods: methods.value.trim(),
    service_global_whitelist: flag(globalWhitelist.control),
    service_cdn: flag(cdn.control),
    service_cdn_host: cdnHost.value.trim(),
    service_cdn_proxy_host: cdnProxyHost.value.trim(),
    service_stream: flag(stream.control),
    ...tls.fields(),
  });

  // A disabled fieldset disables every control inside: the read-only view of the same form.
  const content = h(
    'fieldset',
    { class: 'plain', disabled: readOnly },
    section(
      'Domain',
      h('div', { class: 'form-grid' }, field({ label: 'Name', path: 'name', control: name, hint: 'The domain the proxy serves.' })),
      enable.element,
      h('h3', null, 'Aliases'),
      aliases.element,
    ),
    section('Origins', origins.element, h('div', { class: 'switches' }, iphash.element, https2http.element)),
    section('HTTPS', tls.element, h('div', { class: 'switches' }, redirect.element, hsts.element, http2.element, wwwredir.element)),
    section(
      'Protection',
      h('div', { class: 'switches' }, waf.element, bot.element),
      h('div', { class: 'form-grid' }, field({ label: 'Allowed methods', path: 'service_methods', control: methods, hint: 'Comma-separated; others get 405. Empty: every method.' })),
      h('h3', null, 'Rate rules'),
      rules.element,
    ),
    section('Access lists', h('div', { class: 'form-grid lists' }, blacklist.element, whitelist.element), globalWhitelist.element),
    section(
      'Countries',
      h('div', { class: 'form-grid' }, field({ label: 'Country filter', path: 'service_geoip_mode', control: geoMode, hint: 'Private and loopback addresses are never filtered.' })),
      countries.element,
    ),
    h(
      'details',
      { class: 'card' },
      h('summary', null, 'Provider compatibility settings (stored, not acted on)'),
      h('div', { class: 'switches' }, cdn.element, stream.element),
      h('div', { class: 'form-grid' }, field({ label: 'CDN host', path: 'service_cdn_host', control: cdnHost }), field({ label: 'CDN proxy host', path: 'service_cdn_proxy_host', control: cdnProxyHost })),
    ),
  );

  const form = h(
    'form',
    { class: 'resource-editor', novalidate: true, 'aria-label': r === undefined ? 'New resource' : `Settings of ${r.name}` },
    content,
    formError(),
    readOnly ? null : h('div', { class: 'actions' }, h('button', { type: 'submit', 'data-write': true }, r === undefined ? 'Create resource' : 'Save changes')),
  );
  onSubmit(form, async () => {
    try {
      await options.save(body());
    } catch (error) {
      throw placeLineErrors(error, [blacklist, whitelist]);
    }
  });
  return form;
}
