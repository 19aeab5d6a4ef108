// Hash routes (#/zones/example.com): the server serves one page, and a reload or a shared link opens
// the same view. A route renders a page into the main region, titles the document and moves focus to
// the page's heading so keyboard and screen-reader users land on what changed.
import { describeError, type Api } from './api.ts';
import { h, replace, type Child } from './dom.ts';
import type { Session } from './session.ts';

export interface PageContext {
  session: Session;
  api: Api;
  /** The route's named parts, decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  navigate(path: string): void;
  /** Renders the current route again (after a change the page shows). */
  reload(): void;
}

export type Page = (ctx: PageContext) => Promise<Child> | Child;

export interface Route {
  /** '/zones/:zone' */
  path: string;
  title: string;
  page: Page;
}

interface CompiledRoute extends Route {
  pattern: RegExp;
  keys: string[];
}

function compile(route: Route): CompiledRoute {
  const keys: string[] = [];
  const source = route.path
    .split('/')
    .map((part) => {
      if (!part.startsWith(':')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      keys.push(part.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { ...route, pattern: new RegExp(`^${source}$`), keys };
}

export function href(path: string): string {
  return `#${path}`;
}

export class Router {
  private readonly routes: CompiledRoute[];
  private readonly fallback: string;
  private rendering = 0;

  constructor(routes: Route[], fallback: string) {
    this.routes = routes.map(compile);
    this.fallback = fallback;
  }

  current(): { path: string; query: URLSearchParams } {
    const [path = '', query = ''] = location.hash.replace(/^#/, '').split('?');
    return { path: path === '' ? this.fallback : path, query: new URLSearchParams(query) };
  }

  navigate(path: string): void {
    if (location.hash === href(path)) this.onChange();
    else location.hash = href(path);
  }

  /** Renders the route the address names into `main`; `context` supplies the session. */
  async render(main: HTMLElement, context: Omit<PageContext, 'params' | 'query'>): Promise<void> {
    // An empty address shows the fallback and names it, so a reload, a shared link or a later visit
    // to that same address is the page already shown and not a second render of it.
    if (location.hash.replace(/^#/, '') === '') history.replaceState(null, '', href(this.fallback));
    const { path, query } = this.current();
    const ticket = ++this.rendering;
    const route = this.match(path);
    if (route === undefined) {
      this.navigate(this.fallback);
      return;
    }
    const params: Record<string, string> = {};
    const values = route.pattern.exec(path)?.slice(1) ?? [];
    route.keys.forEach((key, i) => (params[key] = decodeURIComponent(values[i] ?? '')));
    main.setAttribute('aria-busy', 'true');
    let content: Child;
    try {
      content = await route.page({ ...context, params, query });
    } catch (error) {
      content = h('section', { class: 'page-error' }, h('h1', null, route.title), h('p', { role: 'alert' }, describeError(error)));
    }
    // A later navigation won the race: its page is the one to show.
    if (ticket !== this.rendering) return;
    replace(main, content);
    main.removeAttribute('aria-busy');
    document.title = `${route.title} · edgeplane`;
    const heading = main.querySelector('h1');
    if (heading !== null) {
      heading.tabIndex = -1;
      heading.focus();
    }
  }

  /** Set by the application: what to do when the address changes. */
  onChange: () => void = () => undefined;

  private match(path: string): CompiledRoute | undefined {
    return this.routes.find((route) => route.pattern.test(path));
  }
}
