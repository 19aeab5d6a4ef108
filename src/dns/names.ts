// Domain name rules shared by zones, RRset owners and record targets: A-labels for IDNs, labels of
// at most 63 octets, names of at most 253, `*` only as the whole leftmost label, lower case, no
// trailing dot in the API's form.
import { domainToASCII } from 'node:url';

export class NameError extends Error {}

// Letters, digits, hyphen and underscore (service labels such as _acme-challenge, _sip._tcp).
const labelPattern = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/;

// Characters that show nothing: zero-width spaces and joiners, the byte order mark, the soft hyphen,
// variation selectors, Hangul fillers, bidi and tag controls, other format and control characters.
// IDNA mapping drops several of them silently (ex\u00ADample → example), so a name that looks like
// one thing would be stored as another: they are refused instead.
const invisible = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}]/u;

/** The first invisible character of `text` as `U+XXXX`, or undefined. */
function invisibleCharacter(text: string): string | undefined {
  const found = invisible.exec(text)?.[0];
  return found === undefined ? undefined : `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Leading and trailing ASCII whitespace removed, as clients pad names; String.trim() would also
 * drop a byte order mark (U+FEFF), which canonicalName refuses instead.
 */
export function trimName(input: string): string {
  return input.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
}

/** IDN (U-label) input becomes its A-label form; ASCII input is only lower-cased. */
function toAscii(label: string): string {
  if (/^[\x21-\x7e]*$/.test(label)) return label.toLowerCase();
  const ascii = domainToASCII(label);
  if (ascii === '') throw new NameError(`"${label}" is not a valid internationalised label`);
  return ascii;
}

export interface NameRules {
  /** Allow `*` as the whole leftmost label. */
  wildcard?: boolean;
}

/**
 * Validates an absolute name given without or with a trailing dot and returns it lower case,
 * A-labels, no trailing dot. The root (".") is not accepted here.
 */
export function canonicalName(input: string, rules: NameRules = {}): string {
  const hidden = invisibleCharacter(input);
  if (hidden !== undefined) throw new NameError(`name holds an invisible or control character (${hidden})`);
  const trimmed = input.endsWith('.') ? input.slice(0, -1) : input;
  if (trimmed === '') throw new NameError('name is empty');
  const labels = trimmed.split('.').map(toAscii);
  labels.forEach((label, index) => {
    if (label === '') throw new NameError(`"${input}" has an empty label`);
    if (label.length > 63) throw new NameError(`label "${label.slice(0, 20)}…" is longer than 63 octets`);
    if (label === '*') {
      if (!rules.wildcard) throw new NameError('a wildcard is not allowed here');
      if (index !== 0) throw new NameError('"*" is only allowed as the leftmost label');
      return;
    }
    if (!labelPattern.test(label)) {
      throw new NameError(`label "${label}" may hold only letters, digits, "-" and "_", and not start or end with "-"`);
    }
  });
  const name = labels.join('.');
  if (name.length > 253) throw new NameError('name is longer than 253 octets');
  return name;
}

/** True when `name` is `zone` or below it (both canonical). */
export function isInZone(name: string, zone: string): boolean {
  return name === zone || name.endsWith(`.${zone}`);
}

/**
 * An RRset owner as clients send it in paths and bodies: fully qualified (`www.example.com`, with or
 * without the trailing dot), the zone itself for the apex, `@`, or relative to the zone (`www`).
 */
export function ownerName(input: string, zone: string): string {
  const raw = trimName(input);
  if (raw === '@' || raw === '' || raw === '.') return zone;
  const absolute = raw.endsWith('.');
  const name = canonicalName(raw, { wildcard: true });
  if (isInZone(name, zone)) return name;
  if (absolute) throw new NameError(`"${input}" is outside the zone ${zone}`);
  return canonicalName(`${name}.${zone}`, { wildcard: true });
}

/** The owner relative to its zone, as a zone file writes it: `@` for the apex. */
export function relativeName(name: string, zone: string): string {
  return name === zone ? '@' : name.slice(0, -(zone.length + 1));
}
