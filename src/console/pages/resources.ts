// The account's protected resources (#/resources): each with its names, origins, whether the proxy
// serves it and its protections in short; create and delete for those who may write.
import '../styles/resources.css';
import { segment } from '../api.ts';
import { h } from '../dom.ts';
import { href, type PageContext } from '../router.ts';
import { confirmAction } from '../components/dialog.ts';
import { formError, run } from '../components/form.ts';
import { notify } from '../components/notice.ts';
import { utcTime, type ResourceListItem } from '../resources/types.ts';

export async function resourcesPage(ctx: PageContext): Promise<HTMLElement> {
  const resources = await ctx.api.get<ResourceListItem[]>('/security/resources');
  resources.sort((a, b) => a.name.localeCompare(b.name));
  const canWrite = ctx.session.canWrite();
  const page = h('section', { class: 'resources-page' });

  const remove = (resource: ResourceListItem): Promise<void> =>
    run(page, async () => {
      if (!(await confirmAction(`Delete ${resource.name}? The proxy stops serving it at once.`, 'Delete'))) return;
      await ctx.api.delete(`/security/resources/${segment(resource.id)}`);
      notify(`${resource.name} deleted`);
      ctx.reload();
    });

  const rows = resources.map((r) =>
    h(
      'tr',
      null,
      h('th', { scope: 'row' }, h('a', { href: href(`/resources/${segment(r.id)}`) }, r.name)),
      h('td', { class: 'content' }, r.aliases.length === 0 ? h('span', { class: 'muted' }, '—') : r.aliases.map((a) => a.alias_data).join(', ')),
      h('td', null, r.origins.length),
      h('td', null, state(r)),
      h('td', null, protections(r)),
      canWrite
        ? h('td', null, h('button', { type: 'button', class: 'secondary', 'data-write': true, 'aria-label': `Delete ${r.name}`, onclick: () => void remove(r) }, 'Delete'))
        : null,
    ),
  );

  page.append(
    h('h1', null, 'Protected resources'),
    h(
      'div',
      { class: 'toolbar' },
      h('p', { class: 'muted' }, 'Domains the protection proxy serves: point their DNS at the address each resource shows.'),
      canWrite ? h('a', { class: 'button', href: href('/resources/new'), 'data-write': true }, 'New resource') : null,
    ),
    formError(),
    resources.length === 0
      ? h('p', { class: 'muted' }, 'No protected resources yet.')
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'resources' },
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                ...['Name', 'Aliases', 'Origins', 'State', 'Protection'].map((t) => h('th', { scope: 'col' }, t)),
                canWrite ? h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')) : null,
              ),
            ),
            h('tbody', null, rows),
          ),
        ),
  );
  return page;
}

function state(r: ResourceListItem): HTMLElement {
  if (!r.enabled) return h('span', { class: 'status status-disabled' }, 'disabled');
  if (r.active) return h('span', { class: 'status status-active' }, 'served');
  return h('span', { class: 'status status-off', title: 'Needs an origin that is not down and a name it holds' }, 'not served');
}

/** The switches that are on, in a word or two each (the list shape has no bot protection or HSTS). */
function protections(r: ResourceListItem): HTMLElement {
  const tags: string[] = [];
  if (r.ssl_type === 'custom' || r.ssl_type === 'le') {
    const kind = r.ssl_type === 'le' ? 'managed' : 'own';
    tags.push(r.service_ssl_expire > 0 ? `TLS ${kind} until ${utcTime(r.service_ssl_expire).slice(0, 10)}` : `TLS ${kind}, not issued yet`);
  }
  if (r.is_redirect_to_https_enabled) tags.push('HTTPS redirect');
  if (r.is_waf_enabled) tags.push('WAF');
  if (r.rate_limier_rules.length > 0) tags.push(`${String(r.rate_limier_rules.length)} rate rule${r.rate_limier_rules.length === 1 ? '' : 's'}`);
  if (r.blacklists.length > 0) tags.push(`blacklist ${String(r.blacklists.length)}`);
  if (r.whitelists.length > 0) tags.push(`whitelist ${String(r.whitelists.length)}`);
  const countries = r.service_geoip_list === '' ? 0 : r.service_geoip_list.split(',').length;
  if (r.service_geoip_mode === 1) tags.push(`geo: ${String(countries)} refused`);
  if (r.service_geoip_mode === 2) tags.push(`geo: only ${String(countries)}`);
  if (r.service_methods.trim() !== '' && /[a-z]/i.test(r.service_methods)) tags.push(`methods ${r.service_methods}`);
  if (tags.length === 0) return h('span', { class: 'muted' }, 'none');
  return h('ul', { class: 'tags' }, tags.map((t) => h('li', { class: 'tag' }, t)));
}
