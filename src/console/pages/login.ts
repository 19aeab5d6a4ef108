// Sign in with e-mail and password (POST /iam/auth/jwt/login). A throttled login (429) says how long
// to wait rather than "wrong password".
import { ApiError, describeError } from '../api.ts';
import { h } from '../dom.ts';
import type { Session } from '../session.ts';
import { field, input } from '../components/field.ts';
import { formError, onSubmit } from '../components/form.ts';

export function loginPage(session: Session, onSignedIn: () => void): HTMLElement {
  const email = input({ type: 'email', name: 'username', autocomplete: 'username', required: true });
  const password = input({ type: 'password', name: 'password', autocomplete: 'current-password', required: true });
  const form = h(
    'form',
    { class: 'login card', 'aria-labelledby': 'login-title' },
    h('h1', { id: 'login-title' }, 'Sign in to edgeplane'),
    field({ label: 'E-mail', path: 'username', control: email }),
    field({ label: 'Password', path: 'password', control: password }),
    formError(),
    h('button', { type: 'submit' }, 'Sign in'),
  );
  onSubmit(form, async () => {
    try {
      await session.login(email.value.trim(), password.value);
    } catch (error) {
      if (error instanceof ApiError && error.status === 429) {
        throw new Error(`Too many sign-in attempts. Wait ${error.retryAfter ?? 1} s and try again.`, { cause: error });
      }
      if (error instanceof ApiError && error.status === 401) throw new Error('Wrong e-mail or password.', { cause: error });
      throw new Error(describeError(error), { cause: error });
    }
    password.value = '';
    onSignedIn();
  });
  return h('div', { class: 'login-page' }, form);
}
