// The frame around every page once signed in: the navigation, who is signed in with which role, and
// the sign-out button. On a phone the navigation wraps above the page.
import { h } from './dom.ts';
import { href } from './router.ts';
import type { Session } from './session.ts';
import { noticeRegion } from './components/notice.ts';

const sections: [path: string, label: string][] = [
  ['/dashboard', 'Dashboard'],
  ['/zones', 'DNS zones'],
  ['/network-mappings', 'Network mappings'],
  ['/lookup', 'DNS lookup'],
  ['/resources', 'Protected resources'],
  ['/account', 'Account'],
];

export function frame(session: Session, onLogout: () => void): { root: HTMLElement; main: HTMLElement; highlight(path: string): void } {
  const me = session.me;
  const links = sections.map(([path, label]) => h('a', { href: href(path), 'data-section': path }, label));
  const main = h('main', { id: 'main' });
  const root = h(
    'div',
    { class: 'frame' },
    h('a', { class: 'skip', href: '#main' }, 'Skip to content'),
    h(
      'header',
      { class: 'top' },
      h('a', { class: 'brand', href: href('/dashboard') }, 'edgeplane'),
      h('nav', { 'aria-label': 'Sections' }, ...links),
      h(
        'div',
        { class: 'who' },
        h('span', { class: 'who-email' }, me?.email ?? ''),
        h('span', { class: 'role', title: 'Your role in this account' }, me?.role ?? ''),
        h('button', { type: 'button', class: 'secondary', onclick: onLogout }, 'Sign out'),
      ),
    ),
    main,
    noticeRegion(),
  );
  // The skip link targets main without changing the route.
  root.querySelector('.skip')?.addEventListener('click', (event) => {
    event.preventDefault();
    main.tabIndex = -1;
    main.focus();
  });
  return {
    root,
    main,
    highlight(path: string) {
      for (const link of links) {
        const section = link.dataset.section ?? '';
        if (path === section || path.startsWith(`${section}/`)) link.setAttribute('aria-current', 'page');
        else link.removeAttribute('aria-current');
      }
    },
  };
}
