// "Your access": who is signed in, in which account, with which role, and what each role may do —
// the same rules the API enforces (docs/api/iam.md), the user's own row marked.
import { h } from '../dom.ts';
import type { Me, Role } from '../session.ts';
import { roles } from './model.ts';

const abilities: Record<Role, string> = {
  Administrators: 'Everything in the account: users, every API token of the account, DNS zones and records, protected resources.',
  Users: 'Read and change DNS zones, records and protected resources; create and revoke their own API tokens.',
  'Read-only': 'Look at everything, change nothing: the API refuses every write (403).',
};

export function accessSection(me: Me): HTMLElement {
  const operatorNote = me.operator && me.role === 'Administrators'
    ? h('p', null, 'This is the platform operators\' account: as one of its administrators you also create accounts for others.')
    : null;
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'access-title' },
    h('h2', { id: 'access-title' }, 'Your access'),
    h(
      'dl',
      { class: 'facts' },
      h('dt', null, 'E-mail'),
      h('dd', null, me.email),
      h('dt', null, 'Account'),
      h('dd', null, me.accountName, h('span', { class: 'muted' }, ` (id ${me.accountId}${me.operator ? ', platform operators' : ''})`)),
      h('dt', null, 'Role'),
      h('dd', null, h('strong', { class: 'own-role-name' }, me.role)),
    ),
    operatorNote,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'roles' },
        h('caption', null, 'What each role may do'),
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Role'), h('th', { scope: 'col' }, 'May'))),
        h(
          'tbody',
          null,
          ...roles.map((role) => {
            const own = role === me.role;
            return h(
              'tr',
              { class: own ? 'own-role' : null, 'aria-current': own ? 'true' : null },
              h('th', { scope: 'row' }, role, own ? h('span', { class: 'status status-on you' }, 'your role') : null),
              h('td', null, abilities[role]),
            );
          }),
        ),
      ),
    ),
  );
}
