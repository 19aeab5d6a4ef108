// SOA values of a zone: defaults, bounds and serial arithmetic (RFC 1982).
import { canonicalName, NameError } from './names.ts';

/** Defaults chosen after RFC 1912 §2.2 and common provider values. */
export const soaDefaults = { refresh: 3600, retry: 600, expiry: 1_209_600, nx_ttl: 300 } as const;

/** Inclusive bounds per field, in seconds. */
export const soaBounds = {
  refresh: [60, 2_147_483_647],
  retry: [60, 2_147_483_647],
  expiry: [3600, 2_147_483_647],
  nx_ttl: [0, 86_400],
} as const;

export const maxSerial = 0xffff_ffff;

/** `a` is after `b` in RFC 1982 serial number arithmetic. */
export function serialAfter(a: number, b: number): boolean {
  return a !== b && ((a > b && a - b < 2 ** 31) || (a < b && b - a > 2 ** 31));
}

/** The serial after a committed change: one up (wrapping), or the client's if that is later. */
export function nextSerial(current: number, requested: number | undefined): number {
  const bumped = (current + 1) % 2 ** 32;
  return requested !== undefined && serialAfter(requested, bumped) ? requested : bumped;
}

export function initialSerial(now = Date.now()): number {
  return Math.floor(now / 1000) % 2 ** 32;
}

/**
 * The SOA contact: an e-mail address (`hostmaster@example.com`) or the RNAME form
 * (`hostmaster.example.com`), kept as given; returns an error message or undefined.
 */
export function contactProblem(contact: string): string | undefined {
  const at = contact.indexOf('@');
  try {
    if (at >= 0) {
      const local = contact.slice(0, at);
      if (!/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,63}$/.test(local)) return 'the part before @ is not a valid mailbox';
      canonicalName(contact.slice(at + 1));
    } else {
      canonicalName(contact);
    }
    return undefined;
  } catch (e) {
    return e instanceof NameError ? e.message : String(e);
  }
}

/** The contact as an SOA RNAME: the mailbox's dots escaped, `@` becoming the first label break. */
export function contactRname(contact: string): string {
  const at = contact.indexOf('@');
  if (at < 0) return contact.replace(/\.$/, '');
  return `${contact.slice(0, at).replace(/\./g, '\\.')}.${contact.slice(at + 1).replace(/\.$/, '')}`;
}
