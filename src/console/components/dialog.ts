// Confirmation before what cannot be undone (deleting a zone, revoking a token), as a modal <dialog>:
// focus stays inside it, Escape cancels.
import { h } from '../dom.ts';

export function confirmAction(message: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h(
      'dialog',
      { class: 'confirm', 'aria-labelledby': 'confirm-message' },
      h('p', { id: 'confirm-message' }, message),
      h(
        'form',
        { method: 'dialog', class: 'actions' },
        h('button', { type: 'submit', value: 'cancel', class: 'secondary' }, 'Cancel'),
        h('button', { type: 'submit', value: 'confirm', class: 'danger' }, confirmLabel),
      ),
    );
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}
