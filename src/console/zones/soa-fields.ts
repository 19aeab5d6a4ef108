// The SOA values of a zone as form fields: the create form offers them (optional), the settings tab
// edits them. Paths are the API's member names, so its validation messages land beside each one.
import { field, input } from '../components/field.ts';
import type { Zone } from './model.ts';
import { numberValue } from './model.ts';

type SoaKey = 'contact' | 'primary_server' | 'serial' | 'refresh' | 'retry' | 'expiry' | 'nx_ttl';

interface SoaField {
  key: SoaKey;
  label: string;
  hint: string;
  numeric: boolean;
}

const soaFields: SoaField[] = [
  { key: 'contact', label: 'Contact', hint: 'An e-mail address or SOA RNAME; default hostmaster.<zone>', numeric: false },
  { key: 'primary_server', label: 'Primary server', hint: 'The SOA MNAME; default the first name server of the service', numeric: false },
  { key: 'serial', label: 'Serial', hint: 'Every change adds one; a higher number is used as sent', numeric: true },
  { key: 'refresh', label: 'Refresh', hint: 'Seconds, 60 or more (default 3600)', numeric: true },
  { key: 'retry', label: 'Retry', hint: 'Seconds, 60 or more (default 600)', numeric: true },
  { key: 'expiry', label: 'Expiry', hint: 'Seconds, 3600 or more (default 1209600)', numeric: true },
  { key: 'nx_ttl', label: 'Negative-answer TTL', hint: 'Seconds a resolver keeps "no such name", 0–86400 (default 300)', numeric: true },
];

export const soaKeys: readonly string[] = soaFields.map((f) => f.key);

export interface SoaInputs {
  /** The labelled fields, in SOA order. */
  elements: HTMLElement[];
  controls: Map<SoaKey, HTMLInputElement>;
  /** The values to send: empty fields are left out, and so is an unchanged serial (see `initial`). */
  body(): Record<string, string | number>;
  /** Shows a zone's current values (after a save the serial has moved on). */
  fill(zone: Zone): void;
}

/** `withSerial`: the create form has no serial (a new zone starts at the current time). */
export function soaInputs(options: { zone?: Zone; withSerial: boolean; readOnly: boolean }): SoaInputs {
  const controls = new Map<SoaKey, HTMLInputElement>();
  let initialSerial = options.zone?.serial;
  const elements = soaFields
    .filter((f) => options.withSerial || f.key !== 'serial')
    .map((f) => {
      const control = input({ name: f.key, inputmode: f.numeric ? 'numeric' : undefined, autocomplete: 'off', disabled: options.readOnly });
      controls.set(f.key, control);
      return field({ label: f.label, path: f.key, control, hint: f.hint });
    });
  const fill = (zone: Zone): void => {
    initialSerial = zone.serial;
    for (const [key, control] of controls) control.value = String(zone[key]);
  };
  if (options.zone !== undefined) fill(options.zone);
  return {
    elements,
    controls,
    fill,
    body() {
      const body: Record<string, string | number> = {};
      for (const f of soaFields) {
        const control = controls.get(f.key);
        if (control === undefined) continue;
        const value = f.numeric ? numberValue(control.value) : control.value.trim() || undefined;
        if (value === undefined) continue;
        // Sending the serial back as it is would only earn a warning that it was not used.
        if (f.key === 'serial' && value === initialSerial) continue;
        body[f.key] = value;
      }
      return body;
    },
  };
}
