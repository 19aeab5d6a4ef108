// A record's meta, the values the pickers read (docs/api/dns.md, "Pickers and record meta"). Keys the
// console has no control for are kept as they were: other tools may have stored them.
import { h } from '../dom.ts';
import { codePicker, continentChoices, countryChoices } from '../components/code-picker.ts';
import { checkbox, field, input } from '../components/field.ts';
import { textOf, withChanges, type Meta } from './model.ts';

export interface MetaEditor {
  element: HTMLElement;
  value(): Meta;
}

const listOf = (text: string): string[] => text.split(/[\s,]+/).filter((word) => word !== '');
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(textOf) : value === undefined || value === null ? [] : [textOf(value)]);
const numberOrText = (text: string): number | string => (/^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : text.trim());

export function recordMetaEditor(meta: Meta, base: string, readOnly: boolean): MetaEditor {
  const countries = codePicker({ label: 'Countries', path: `${base}.countries`, choices: countryChoices, value: strings(meta['countries']).map((c) => c.toUpperCase()), readOnly });
  const continents = codePicker({ label: 'Continents', path: `${base}.continents`, choices: continentChoices, value: strings(meta['continents']).map((c) => c.toUpperCase()), readOnly });
  const regions = input({ value: strings(meta['regions']).join(', '), placeholder: 'US-CA, Bavaria' });
  const asn = input({ value: strings(meta['asn']).join(', '), placeholder: '15169, 3320', inputmode: 'numeric' });
  const ip = h('textarea', { rows: 2, class: 'rrset-short-text', placeholder: '192.0.2.0/24\n2001:db8::/32' }, strings(meta['ip']).join('\n'));
  const latlong = input({ value: Array.isArray(meta['latlong']) ? meta['latlong'].map(textOf).join(', ') : '', placeholder: '52.37, 4.90' });
  const weight = input({ type: 'number', min: 0, max: 1000000, value: textOf(meta['weight']) });
  const flags = (['default', 'backup', 'fallback'] as const).map((key) => ({ key, box: checkbox(flagLabels[key], meta[key] === true, `${base}.${key}`) }));
  const notes = h('textarea', { rows: 2, class: 'rrset-short-text' }, strings(meta['notes']).join('\n'));

  const hasMeta = Object.keys(meta).length > 0;
  const element = h(
    'details',
    { class: 'record-meta', open: hasMeta },
    h('summary', null, 'Meta for pickers: location, network, weight, notes'),
    h(
      'div',
      { class: 'form-grid' },
      countries.element,
      continents.element,
      field({ label: 'Regions', path: `${base}.regions`, control: regions, hint: 'ISO 3166-2 codes or subdivision names, comma-separated (region picker; needs a city GeoIP database)' }),
      field({ label: 'AS numbers', path: `${base}.asn`, control: asn, hint: 'Comma-separated' }),
      field({ label: 'IP ranges', path: `${base}.ip`, control: ip, hint: 'Addresses or CIDRs, one a line' }),
      field({ label: 'Latitude, longitude', path: `${base}.latlong`, control: latlong, hint: 'For the geodistance picker' }),
      field({ label: 'Weight (weighted_shuffle)', path: `${base}.weight`, control: weight, hint: '0-1000000, default 50' }),
      field({ label: 'Notes', path: `${base}.notes`, control: notes, hint: 'One note a line' }),
    ),
    h('div', { class: 'record-flags' }, ...flags.map((f) => f.box.element)),
    h('p', { class: 'field-error', 'data-error-for': base }),
  );

  return {
    element,
    value(): Meta {
      const list = <T>(values: T[]): T[] | undefined => (values.length === 0 ? undefined : values);
      const position = listOf(latlong.value);
      const changes: Meta = {
        countries: list(countries.value()),
        // The API documents continent codes in lower case (af an as eu na oc sa).
        continents: list(continents.value().map((c) => c.toLowerCase())),
        regions: list(regions.value.split(',').map((r) => r.trim()).filter((r) => r !== '')),
        asn: list(listOf(asn.value).map((a) => (/^\d+$/.test(a) ? Number(a) : a))),
        ip: list(listOf(ip.value)),
        latlong: latlong.value.trim() === '' ? undefined : position.length === 2 && position.every((p) => Number.isFinite(Number(p))) ? position.map(Number) : latlong.value.trim(),
        weight: weight.value.trim() === '' ? undefined : numberOrText(weight.value),
        notes: list(notes.value.split('\n').map((line) => line.trim()).filter((line) => line !== '')),
      };
      for (const { key, box } of flags) changes[key] = box.control.checked ? true : undefined;
      return withChanges(meta, changes);
    },
  };
}

const flagLabels = {
  default: 'Default (answered when nothing else matches)',
  backup: 'Backup',
  fallback: 'Fallback (geodns: when no location matches)',
} as const;
