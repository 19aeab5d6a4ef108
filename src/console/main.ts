// The console's entry: resume the tab's session or ask to sign in, then route.
import './styles.css';
import { replace } from './dom.ts';
import { frame } from './layout.ts';
import { loginPage } from './pages/login.ts';
import { routes } from './routes.ts';
import { Router } from './router.ts';
import { Session } from './session.ts';

const app = document.getElementById('app') as HTMLElement;
const router = new Router(routes, '/dashboard');
const session = new Session(() => showLogin());

function showLogin(): void {
  router.onChange = () => undefined;
  document.title = 'Sign in · edgeplane';
  replace(app, loginPage(session, showApp));
  app.querySelector('input')?.focus();
}

function showApp(): void {
  const view = frame(session, () => void session.logout().then(showLogin));
  replace(app, view.root);
  const context = { session, api: session.api, navigate: (path: string) => router.navigate(path), reload: () => router.onChange() };
  router.onChange = () => {
    view.highlight(router.current().path);
    void router.render(view.main, context);
  };
  router.onChange();
}

window.addEventListener('hashchange', () => router.onChange());
void session.resume().then((resumed) => (resumed ? showApp() : showLogin()), showLogin);
