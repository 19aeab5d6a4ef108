// The record types the API accepts as RRsets and the fields of each one's content, in content order
// (docs/api/dns.md, "Content per type"). The editor builds one control per field and the content
// array from their values; the API is the judge of each value and says so next to the field.
import type { ContentValue } from './model.ts';

export type FieldKind = 'number' | 'name' | 'text' | 'long-text' | 'params';

export interface ContentField {
  /** As the API's messages name it: "exchange" in "MX exchange must be a host name". */
  name: string;
  label: string;
  kind: FieldKind;
  min?: number;
  max?: number;
  placeholder?: string;
  hint?: string;
  /** Suggestions offered as the user types. */
  suggestions?: string[];
}

const target = (label: string, hint?: string): ContentField => ({ name: 'target', label, kind: 'name', placeholder: 'host.example.com.', ...(hint === undefined ? {} : { hint }) });
const uint16 = (name: string, label: string): ContentField => ({ name, label, kind: 'number', min: 0, max: 65535 });

const serviceBinding: ContentField[] = [
  { ...uint16('priority', 'Priority'), hint: '0: alias mode (no parameters); 1 and up: service mode' },
  { ...target('Target', '"." means the owner name itself') },
  {
    name: 'parameter',
    label: 'Parameters',
    kind: 'params',
    placeholder: 'alpn=h3,h2 port=443',
    hint: 'key=value,value pairs separated by spaces: mandatory, alpn, no-default-alpn, port, ipv4hint, ech, ipv6hint, dohpath, keyNNNNN',
  },
];

export const recordTypes: ReadonlyMap<string, ContentField[]> = new Map([
  ['A', [{ name: 'address', label: 'IPv4 address', kind: 'text', placeholder: '192.0.2.1' }]],
  ['AAAA', [{ name: 'address', label: 'IPv6 address', kind: 'text', placeholder: '2001:db8::1' }]],
  ['CNAME', [target('Target')]],
  ['MX', [uint16('preference', 'Preference'), { name: 'exchange', label: 'Mail exchange', kind: 'name', placeholder: 'mail.example.com.', hint: '"." for a null MX (no mail accepted)' }]],
  ['TXT', [{ name: 'text', label: 'Text', kind: 'long-text', hint: 'One text, without surrounding quotes; long texts are split into 255-octet strings on the wire' }]],
  ['NS', [target('Name server')]],
  ['SRV', [uint16('priority', 'Priority'), uint16('weight', 'Weight'), uint16('port', 'Port'), target('Target', '"." when the service is not offered')]],
  [
    'CAA',
    [
      { name: 'flags', label: 'Flags', kind: 'number', min: 0, max: 255, hint: '128: critical' },
      { name: 'tag', label: 'Tag', kind: 'text', suggestions: ['issue', 'issuewild', 'iodef', 'issuemail', 'issuevmc'] },
      { name: 'value', label: 'Value', kind: 'text', placeholder: 'letsencrypt.org' },
    ],
  ],
  ['PTR', [target('Target')]],
  ['HTTPS', serviceBinding],
  ['SVCB', serviceBinding],
  [
    'DS',
    [
      uint16('key tag', 'Key tag'),
      { name: 'algorithm', label: 'Algorithm', kind: 'number', min: 1, max: 255, hint: '13: ECDSA P-256 SHA-256' },
      { name: 'digest type', label: 'Digest type', kind: 'number', min: 1, max: 255, hint: '2: SHA-256' },
      { name: 'digest', label: 'Digest', kind: 'text', hint: 'Hex; only at a delegation point (a name below the apex holding NS)' },
    ],
  ],
]);

export const typeNames: string[] = [...recordTypes.keys()];

export function fieldsOf(type: string): ContentField[] {
  return recordTypes.get(type) ?? [{ name: 'content', label: 'Content', kind: 'text' }];
}

/** Existing content → the text of each field's control. */
export function fieldValues(type: string, content: readonly ContentValue[]): string[] {
  return fieldsOf(type).map((field, index) => {
    if (field.kind === 'params') return paramsText(content.slice(index));
    const value = content[index];
    return value === undefined ? '' : Array.isArray(value) ? value.join(',') : String(value);
  });
}

/**
 * The controls' texts → content. Numbers typed as digits become numbers; anything else is sent as typed
 * so that the API's message says what is wrong with it.
 */
export function contentOf(type: string, values: readonly string[]): ContentValue[] {
  const content: ContentValue[] = [];
  fieldsOf(type).forEach((field, index) => {
    const raw = values[index] ?? '';
    if (field.kind === 'params') content.push(...parseParams(raw));
    else if (field.kind === 'long-text') content.push(raw);
    else if (field.kind === 'number') content.push(/^\s*\d+\s*$/.test(raw) ? Number(raw) : raw.trim());
    else content.push(raw.trim());
  });
  return content;
}

// Keys whose value is a comma-separated list (RFC 9460 §7); the others take one value.
const listKeys = new Set(['mandatory', 'alpn', 'ipv4hint', 'ipv6hint']);

/** "alpn=h3,h2 port=443 no-default-alpn" → [["alpn","h3","h2"],["port","443"],["no-default-alpn"]] */
export function parseParams(text: string): (string | number)[][] {
  return text
    .split(/\s+/)
    .filter((word) => word !== '')
    .map((word) => {
      const separator = word.indexOf('=');
      if (separator === -1) return [word];
      const key = word.slice(0, separator);
      const value = word.slice(separator + 1).replace(/^"(.*)"$/, '$1');
      return [key, ...(listKeys.has(key.toLowerCase()) ? value.split(',') : [value])];
    });
}

function paramsText(params: readonly ContentValue[]): string {
  return params.map((p) => (Array.isArray(p) ? (p.length > 1 ? `${String(p[0])}=${p.slice(1).join(',')}` : String(p[0])) : String(p))).join(' ');
}

/**
 * Which field a content message is about: the API names it ("SRV port must be an integer 0-65535"),
 * while its path stops at the record's `content`. -1 when the message is about the whole content.
 */
export function fieldOfMessage(type: string, message: string): number {
  const fields = fieldsOf(type);
  const byName = fields
    .map((field, index) => ({ field, index }))
    .sort((x, y) => y.field.name.length - x.field.name.length)
    .find(({ field }) => message.startsWith(`${type} ${field.name} `));
  if (byName !== undefined) return byName.index;
  // HTTPS/SVCB messages about a parameter name the parameter's key ("HTTPS alpn ...").
  const params = fields.findIndex((field) => field.kind === 'params');
  if (params !== -1 && message.startsWith(`${type} `) && !/ content must be /.test(message)) return params;
  return -1;
}
