// Submitting a form to the API: the buttons wait while the call runs, validation errors land next to
// their fields, anything else in the form's alert line. Nothing typed is lost on an error.
import { ApiError, describeError } from '../api.ts';
import { h } from '../dom.ts';
import { clearFieldErrors, showFieldErrors } from './field.ts';
import { notify } from './notice.ts';

export function formError(): HTMLElement {
  return h('p', { class: 'form-error', role: 'alert' });
}

/** Runs `action` on submit; answers nothing, errors are shown in the form. */
export function onSubmit(form: HTMLFormElement, action: () => Promise<void>): void {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(form, action);
  });
}

/**
 * Runs `action` with the buttons of `form` waiting; `form` may be a lone button (a row's Delete),
 * whose failure, with no alert line to hold it, is told in a notice.
 */
export async function run(form: HTMLElement, action: () => Promise<void>): Promise<void> {
  const buttons = form instanceof HTMLButtonElement ? [form] : [...form.querySelectorAll('button')];
  for (const button of buttons) button.disabled = true;
  const line = form.querySelector('.form-error');
  clearFieldErrors(form);
  if (line !== null) line.textContent = '';
  try {
    await action();
  } catch (error) {
    const unplaced = error instanceof ApiError ? showFieldErrors(form, error.fields) : [];
    const message = [describeError(error), ...unplaced].join(' — ');
    if (line !== null) line.textContent = message;
    else notify(message, 'error');
  } finally {
    for (const button of buttons) button.disabled = false;
  }
}
