// Creating an account for someone else: only administrators of the platform operators' account may
// (POST /iam/accounts). The new account starts with one administrator, who then adds their own users.
import type { Api } from '../api.ts';
import { h, replace } from '../dom.ts';
import { field, input } from '../components/field.ts';
import { formError, onSubmit } from '../components/form.ts';
import { notify } from '../components/notice.ts';
import { createAccount } from './model.ts';

export function newAccountSection(api: Api): HTMLElement {
  const name = input({ name: 'account-name', maxlength: 200, autocomplete: 'off' });
  const email = input({ type: 'email', name: 'admin-email', required: true, autocomplete: 'off' });
  const password = input({ type: 'password', name: 'admin-password', required: true, autocomplete: 'new-password' });
  const outcome = h('p', { class: 'account-created', role: 'status' });
  const form = h(
    'form',
    { 'aria-labelledby': 'new-account-title', 'data-write': true },
    h(
      'div',
      { class: 'form-grid' },
      field({ label: 'Account name', path: 'name', control: name, hint: 'Optional; defaults to the e-mail address\'s local part.' }),
      field({ label: 'Administrator\'s e-mail', path: 'email', control: email }),
      field({ label: 'Administrator\'s password', path: 'password', control: password, hint: 'At least 8 characters.' }),
    ),
    formError(),
    h('div', { class: 'actions' }, h('button', { type: 'submit', 'data-write': true }, 'Create account')),
  );
  onSubmit(form, async () => {
    replace(outcome);
    const typedName = name.value.trim();
    const account = await createAccount(api, { email: email.value.trim(), name: typedName === '' ? undefined : typedName, password: password.value });
    form.reset();
    const admin = account.users[0]?.email ?? account.email;
    notify(`Account “${account.name}” created`);
    replace(outcome, `Account “${account.name}” (id ${account.id}) created. Its administrator signs in as ${admin}.`);
  });
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'new-account-title' },
    h('h2', { id: 'new-account-title' }, 'New account'),
    h(
      'p',
      { class: 'muted' },
      'As an administrator of the platform operators\' account you create accounts for others. Each has its own zones, protected resources, users and tokens, and starts with the administrator below.',
    ),
    form,
    outcome,
  );
}
