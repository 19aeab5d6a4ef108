// The account's users with their roles. Administrators add users and delete them (not themselves:
// the API answers 409); everyone else sees the list only.
import type { Api } from '../api.ts';
import { h, replace } from '../dom.ts';
import type { Me } from '../session.ts';
import { confirmAction } from '../components/dialog.ts';
import { field, input, select } from '../components/field.ts';
import { formError, onSubmit, run } from '../components/form.ts';
import { notify } from '../components/notice.ts';
import { moment } from './dates.ts';
import { addUser, deleteUser, listUsers, roleOf, roles, type User } from './model.ts';

export function usersSection(api: Api, me: Me, initial: User[], onDeleted: () => Promise<void>): HTMLElement {
  const manage = me.role === 'Administrators';
  const list = h('div', null);

  const refresh = async (): Promise<void> => {
    replace(list, userTable(await listUsers(api), me, manage, remove));
  };
  const remove = async (user: User): Promise<void> => {
    const sure = await confirmAction(`Delete the user ${user.email}? They are signed out and their API tokens stop working at once.`, 'Delete');
    if (!sure) return;
    await deleteUser(api, user.id);
    notify(`User ${user.email} deleted`);
    await refresh();
    await onDeleted();
  };
  replace(list, userTable(initial, me, manage, remove));

  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'users-title' },
    h('h2', { id: 'users-title' }, 'Users'),
    manage ? addForm(api, refresh) : h('p', { class: 'muted' }, 'Administrators of the account add and remove users.'),
    list,
  );
}

function addForm(api: Api, onAdded: () => Promise<void>): HTMLFormElement {
  const email = input({ type: 'email', name: 'email', required: true, autocomplete: 'off' });
  const name = input({ name: 'name', maxlength: 200, autocomplete: 'off' });
  // No minlength here: the API's rule is the one that counts, and its message appears beside the field.
  const password = input({ type: 'password', name: 'password', required: true, autocomplete: 'new-password' });
  const role = select(roles.map((r) => [r, r]), 'Users', { name: 'role' });
  const form = h(
    'form',
    { class: 'user-form', 'aria-labelledby': 'new-user-title', 'data-write': true },
    h('h3', { id: 'new-user-title' }, 'Add a user'),
    h(
      'div',
      { class: 'form-grid' },
      field({ label: 'E-mail', path: 'email', control: email, hint: 'They sign in with it.' }),
      field({ label: 'Name', path: 'name', control: name, hint: 'Optional.' }),
      field({ label: 'Password', path: 'password', control: password, hint: 'At least 8 characters; tell it to them yourself.' }),
      field({ label: 'Role', path: 'role', control: role }),
    ),
    formError(),
    h('div', { class: 'actions' }, h('button', { type: 'submit', 'data-write': true }, 'Add user')),
  );
  onSubmit(form, async () => {
    const typedName = name.value.trim();
    const added = await addUser(api, {
      email: email.value.trim(),
      name: typedName === '' ? undefined : typedName,
      password: password.value,
      role: roles.find((r) => r === role.value) ?? 'Users',
    });
    form.reset();
    // reset() goes back to the markup's choice, which names none: the safe default again, not the first.
    role.value = 'Users';
    notify(`User ${added.email} added`);
    await onAdded();
  });
  return form;
}

function userTable(users: User[], me: Me, manage: boolean, remove: (user: User) => Promise<void>): HTMLElement {
  const headers = ['E-mail', 'Name', 'Role', 'Added'];
  if (manage) headers.push('Actions');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'users' },
      h('caption', { class: 'visually-hidden' }, 'Users of the account'),
      h('thead', null, h('tr', null, ...headers.map((label) => h('th', { scope: 'col' }, label)))),
      h(
        'tbody',
        null,
        ...users.map((user) => {
          const self = user.id === me.userId;
          const row = h(
            'tr',
            { 'data-user-id': user.id },
            h('td', null, user.email, self ? h('span', { class: 'muted' }, ' (you)') : null),
            h('td', null, user.name),
            h('td', null, roleOf(user)),
            h('td', null, moment(user.created, '')),
          );
          if (manage) {
            // Deleting yourself is refused by the API (409): no button to press in vain.
            let cell: HTMLElement;
            if (self) {
              cell = h('td', null);
            } else {
              const button: HTMLButtonElement = h(
                'button',
                { type: 'button', class: 'danger', 'data-write': true, 'aria-label': `Delete ${user.email}`, onclick: () => void run(button, () => remove(user)) },
                'Delete',
              );
              cell = h('td', null, button);
            }
            row.append(cell);
          }
          return row;
        }),
      ),
    ),
  );
}

