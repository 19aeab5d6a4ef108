// API tokens: the list (administrators see every token of the account, others their own), creating
// one — whose secret is shown once — and revoking. Read-only users see the list only: the API refuses
// them any write.
import type { Api } from '../api.ts';
import { h, replace } from '../dom.ts';
import type { Me } from '../session.ts';
import { confirmAction } from '../components/dialog.ts';
import { field, input, select } from '../components/field.ts';
import { formError, onSubmit, run } from '../components/form.ts';
import { notify } from '../components/notice.ts';
import { endOfDay, localDay, moment } from './dates.ts';
import { createToken, listTokens, revokeToken, rolesUpTo, type ApiToken, type CreatedToken } from './model.ts';
import { secretBox } from './secret-box.ts';

export interface TokensSection {
  element: HTMLElement;
  /** Reads the list again (after a user's deletion took their tokens with it). */
  refresh(): Promise<void>;
}

export function tokensSection(api: Api, me: Me, canWrite: boolean, initial: ApiToken[]): TokensSection {
  const list = h('div', null);
  const secretSlot = h('div', { class: 'secret-slot' });

  const refresh = async (): Promise<void> => {
    replace(list, tokenTable(await listTokens(api, me.accountId), canWrite, revoke));
  };
  const revoke = async (token: ApiToken): Promise<void> => {
    const sure = await confirmAction(`Revoke the token “${token.name}”? Anything using it is refused from its next request on.`, 'Revoke');
    if (!sure) return;
    await revokeToken(api, me.accountId, token.id);
    notify(`Token “${token.name}” revoked`);
    await refresh();
  };
  replace(list, tokenTable(initial, canWrite, revoke));

  const scope = me.role === 'Administrators' ? 'every token of the account' : 'the tokens you created';
  const element = h(
    'section',
    { class: 'card', 'aria-labelledby': 'tokens-title' },
    h('h2', { id: 'tokens-title' }, 'API tokens'),
    h('p', { class: 'muted' }, `Permanent credentials for scripts and tools. Listed: ${scope}.`),
    canWrite
      ? createForm(api, me, async (created) => {
          replace(secretSlot, secretBox(created, () => replace(secretSlot)));
          secretSlot.querySelector<HTMLElement>('.secret')?.focus();
          await refresh();
        })
      : h('p', { class: 'muted' }, 'Your role is Read-only: you see your tokens but cannot create or revoke them.'),
    secretSlot,
    list,
  );
  return { element, refresh };
}

function createForm(api: Api, me: Me, onCreated: (created: CreatedToken) => Promise<void>): HTMLFormElement {
  const name = input({ name: 'name', required: true, maxlength: 200, autocomplete: 'off' });
  const description = input({ name: 'description', maxlength: 1000, autocomplete: 'off' });
  const allowed = rolesUpTo(me.role);
  const role = select(allowed.map((r) => [r, r]), me.role, { name: 'role' });
  const expires = input({ type: 'date', name: 'expires', min: localDay(new Date()) });
  const form = h(
    'form',
    { class: 'token-form', 'aria-labelledby': 'new-token-form-title', 'data-write': true },
    h('h3', { id: 'new-token-form-title' }, 'Create a token'),
    h(
      'div',
      { class: 'form-grid' },
      field({ label: 'Token name', path: 'name', control: name }),
      field({ label: 'Description', path: 'description', control: description, hint: 'Optional: what uses it.' }),
      field({ label: 'Role', path: 'client_user.role', control: role, hint: 'At most your own role.' }),
      field({ label: 'Expires', path: 'exp_date', control: expires, hint: 'Optional: it works until the end of that day. Empty: never expires.' }),
    ),
    formError(),
    h('div', { class: 'actions' }, h('button', { type: 'submit', 'data-write': true }, 'Create token')),
  );
  onSubmit(form, async () => {
    const day = expires.value.trim();
    const created = await createToken(api, me.accountId, {
      name: name.value.trim(),
      description: description.value.trim(),
      role: allowed.find((r) => r === role.value) ?? me.role,
      expires: day === '' ? undefined : endOfDay(day),
    });
    form.reset();
    await onCreated(created);
  });
  return form;
}

function tokenTable(tokens: ApiToken[], canWrite: boolean, revoke: (token: ApiToken) => Promise<void>): HTMLElement {
  if (tokens.length === 0) return h('p', { class: 'muted' }, 'No API tokens yet.');
  const headers = ['Name', 'Description', 'Role', 'Issuer', 'Created', 'Expires', 'Last used', 'Status'];
  if (canWrite) headers.push('Actions');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'tokens' },
      h('caption', { class: 'visually-hidden' }, 'API tokens'),
      h('thead', null, h('tr', null, ...headers.map((label) => h('th', { scope: 'col' }, label)))),
      h(
        'tbody',
        null,
        ...tokens.map((token) => {
          const row = h(
            'tr',
            { 'data-token-id': token.id },
            h('td', null, token.name),
            h('td', { class: 'content' }, token.description),
            h('td', null, token.client_user.role.name),
            h('td', null, token.client_user.user_email),
            h('td', null, moment(token.created, '')),
            h('td', null, moment(token.exp_date, 'never')),
            h('td', null, moment(token.last_usage, 'never')),
            h('td', null, token.expired ? h('span', { class: 'status status-off' }, 'Expired') : h('span', { class: 'status status-on' }, 'Valid')),
          );
          if (canWrite) {
            const button: HTMLButtonElement = h(
              'button',
              { type: 'button', class: 'danger', 'data-write': true, 'aria-label': `Revoke ${token.name}`, onclick: () => void run(button, () => revoke(token)) },
              'Revoke',
            );
            row.append(h('td', null, button));
          }
          return row;
        }),
      ),
    ),
  );
}
