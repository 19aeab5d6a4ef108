// The API's validation messages, placed where the user will see them. A content message's path
// stops at the record (`resource_records[1].content`) while the editor shows one control per field,
// and meta controls sit in a collapsed <details>.
import { ApiError } from '../api.ts';
import { fieldOfMessage, fieldsOf } from './record-types.ts';

/** The error to show: content messages moved to the field they name; the details they sit in opened. */
export function placeErrors(error: unknown, type: string, form: HTMLElement): unknown {
  if (!(error instanceof ApiError) || Object.keys(error.fields).length === 0) return error;
  const fields: Record<string, string> = {};
  const several = fieldsOf(type).length > 1;
  for (const [path, message] of Object.entries(error.fields)) {
    const at = several && /^resource_records\[\d+\]\.content$/.test(path) ? fieldOfMessage(type, message) : -1;
    const placed = at === -1 ? path : `${path}[${at}]`;
    fields[placed] = message;
    const details = slotFor(form, placed)?.closest('details');
    if (details) details.open = true;
  }
  return new ApiError(error.status, error.code, error.message, fields, error.retryAfter);
}

/** As field.ts finds the error line of a path: the exact one, else the closest parent's. */
function slotFor(form: HTMLElement, path: string): Element | null {
  for (let p = path; p !== ''; ) {
    const slot = form.querySelector(`[data-error-for="${CSS.escape(p)}"]`);
    if (slot !== null) return slot;
    const shorter = p.replace(/(\.[^.[\]]+|\[\d+\])$/, '');
    if (shorter === p) return null;
    p = shorter;
  }
  return null;
}
