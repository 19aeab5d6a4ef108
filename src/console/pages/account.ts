// The account page (#/account): the signed-in user's access and what each role may do, API tokens,
// the account's users and, for the platform operators' administrators, creating accounts. Write
// controls exist only for roles the API lets write (data-write marks each).
import '../styles/account.css';
import { h } from '../dom.ts';
import type { PageContext } from '../router.ts';
import { accessSection } from '../account/access.ts';
import { listTokens, listUsers } from '../account/model.ts';
import { newAccountSection } from '../account/new-account.ts';
import { tokensSection } from '../account/tokens.ts';
import { usersSection } from '../account/users.ts';

export async function accountPage(ctx: PageContext): Promise<HTMLElement> {
  const me = ctx.session.me;
  if (me === undefined) throw new Error('Not signed in.');
  const [tokens, users] = await Promise.all([listTokens(ctx.api, me.accountId), listUsers(ctx.api)]);
  const tokensView = tokensSection(ctx.api, me, ctx.session.canWrite(), tokens);
  // Deleting a user ends their tokens too: the token list follows.
  const usersView = usersSection(ctx.api, me, users, () => tokensView.refresh());
  return h(
    'section',
    { class: 'account-page' },
    h('h1', null, 'Account'),
    accessSection(me),
    tokensView.element,
    usersView,
    me.operator && ctx.session.isAdministrator() ? newAccountSection(ctx.api) : null,
  );
}
