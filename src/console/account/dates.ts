// Moments shown in the reader's time zone and language, with the exact UTC value kept in the
// element's datetime attribute (and its tooltip) for whoever needs it.
import { h } from '../dom.ts';

const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function moment(iso: string | null, none: string): HTMLElement | string {
  if (iso === null) return none;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return h('time', { datetime: iso, title: iso }, format.format(at));
}

/** A local calendar day (yyyy-mm-dd), as a date input holds it. */
export function localDay(at: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/**
 * The end of a chosen day in the reader's time zone, as RFC 3339: a token "valid until the 3rd"
 * works all of the 3rd. Text that is no date is sent as typed for the API to refuse beside the field.
 */
export function endOfDay(day: string): string {
  const at = new Date(`${day}T23:59:59`);
  return Number.isNaN(at.getTime()) ? day : at.toISOString();
}
