// The account at a glance: DNS queries and proxied requests over a span ending now (last hour, 24
// hours or 7 days), drawn with uPlot, each chart with a text summary under it. Changing the span
// redraws in place and keeps the address in step (#/dashboard?range=7d), so a reload or a shared
// link shows the same span and the keyboard focus stays on the control just used.
import '../styles/dashboard.css';
import { describeError } from '../api.ts';
import { field, select } from '../components/field.ts';
import { dnsPanel, loadDns } from '../dashboard/dns-panel.ts';
import { loadProxy, proxyPanel } from '../dashboard/proxy-panel.ts';
import { defaultSpan, rangeOf, spanOf, spans, type Range } from '../dashboard/range.ts';
import { h, replace } from '../dom.ts';
import { href, type PageContext } from '../router.ts';

/** A half that could not load says so in its own place; the other half still shows. */
function failed(title: string, error: unknown): HTMLElement {
  return h('section', { class: 'dashboard-panel' }, h('h2', null, title), h('p', { role: 'alert', class: 'form-error' }, describeError(error)));
}

export async function dashboardPage(ctx: PageContext): Promise<HTMLElement> {
  let span = spanOf(ctx.query.get('range'));
  const picker = select(
    spans.map((s) => [s.key, s.label]),
    span.key,
  );
  const refresh = h('button', { type: 'button', class: 'secondary' }, 'Refresh');
  const status = h('p', { class: 'muted', 'aria-live': 'polite' });
  const content = h('div', { class: 'dashboard-content' });
  let ticket = 0;

  const load = async (): Promise<void> => {
    const mine = ++ticket;
    const range: Range = rangeOf(span);
    content.setAttribute('aria-busy', 'true');
    const [dns, proxy] = await Promise.allSettled([loadDns(ctx.api, range), loadProxy(ctx.api, range)]);
    if (mine !== ticket) return;
    // Drawn at once after the answers: a chart sizes itself to its place (components/chart.ts).
    replace(
      content,
      dns.status === 'fulfilled' ? dnsPanel(dns.value, range) : failed('DNS queries', dns.reason),
      proxy.status === 'fulfilled' ? proxyPanel(proxy.value, range) : failed('Protected resources', proxy.reason),
    );
    content.removeAttribute('aria-busy');
    const until = new Date(range.to * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    status.textContent = `Showing the ${span.label.toLowerCase()}, until ${until}.`;
  };

  const keepAddress = (): void => {
    // Only while this page is the one shown: a late change must not rewrite another page's address.
    if (!content.isConnected) return;
    history.replaceState(null, '', href(span.key === defaultSpan ? '/dashboard' : `/dashboard?range=${span.key}`));
  };

  picker.addEventListener('change', () => {
    span = spanOf(picker.value);
    keepAddress();
    void load();
  });
  refresh.addEventListener('click', () => void load());

  await load();
  return h(
    'section',
    { class: 'dashboard-page' },
    h('h1', null, 'Dashboard'),
    h('div', { class: 'toolbar' }, field({ label: 'Range', path: 'range', control: picker }), h('div', { class: 'field' }, refresh)),
    status,
    content,
  );
}
