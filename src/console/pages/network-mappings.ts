// The account's network mappings (#/network-mappings): each with its entries, networks and tags in
// short; create one, delete one after confirming, or import several from YAML, for those who may write.
import '../styles/network-mappings.css';
import { append, h } from '../dom.ts';
import { confirmAction } from '../components/dialog.ts';
import { formError, run } from '../components/form.ts';
import { notify } from '../components/notice.ts';
import { href, type PageContext } from '../router.ts';
import { importForm } from '../network-mappings/import.ts';
import { mappingPath, mappingRoute, mappingsPath, networkCount, type NetworkMapping, type NetworkMappingList } from '../network-mappings/model.ts';

/** Tags shown in a row before "and n more". */
const tagsShown = 8;

export async function networkMappingsPage(ctx: PageContext): Promise<HTMLElement> {
  // An account holds at most 100: one page has them all.
  const list = await ctx.api.get<NetworkMappingList>(mappingsPath, { order_by: 'name' });
  const canWrite = ctx.session.canWrite();
  const page = h('section', { class: 'mappings-page' });

  const remove = (mapping: NetworkMapping): Promise<void> =>
    run(page, async () => {
      if (!(await confirmAction(`Delete the network mapping ${mapping.name} and its ${String(mapping.mapping.length)} entr${mapping.mapping.length === 1 ? 'y' : 'ies'}?`, 'Delete'))) return;
      await ctx.api.delete(mappingPath(mapping.id));
      notify(`${mapping.name} deleted`);
      ctx.reload();
    });

  const row = (m: NetworkMapping): HTMLElement => {
    const tags = [...new Set(m.mapping.flatMap((e) => e.tags))];
    return h(
      'tr',
      null,
      h('th', { scope: 'row' }, h('a', { href: href(mappingRoute(m.id)) }, m.name)),
      h('td', null, m.mapping.length),
      h('td', null, networkCount(m)),
      h(
        'td',
        null,
        tags.length === 0
          ? h('span', { class: 'muted' }, 'none')
          : h('ul', { class: 'tags' }, tags.slice(0, tagsShown).map((t) => h('li', { class: 'tag' }, t)), tags.length > tagsShown ? h('li', { class: 'muted' }, `and ${String(tags.length - tagsShown)} more`) : null),
      ),
      canWrite
        ? h('td', { class: 'row-actions' }, h('button', { type: 'button', class: 'link', 'data-write': true, 'aria-label': `Delete ${m.name}`, onclick: () => void remove(m) }, 'Delete'))
        : null,
    );
  };

  append(page, [
    h('h1', null, 'Network mappings'),
    h(
      'div',
      { class: 'toolbar' },
      h('p', { class: 'muted' }, 'Named lists of networks, each entry giving tags to IPv4 and IPv6 networks.'),
      canWrite ? h('a', { class: 'button', href: href('/network-mappings/new'), 'data-write': true }, 'New mapping') : null,
    ),
    formError(),
    list.network_mappings.length === 0
      ? h('p', { class: 'muted' }, 'No network mappings yet.')
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'mappings', 'aria-label': 'Network mappings' },
            h(
              'thead',
              null,
              h('tr', null, ...['Name', 'Entries', 'Networks', 'Tags'].map((t) => h('th', { scope: 'col' }, t)), canWrite ? h('th', { scope: 'col' }, 'Actions') : null),
            ),
            h('tbody', null, list.network_mappings.map(row)),
          ),
        ),
    canWrite ? importForm(ctx.api, () => ctx.reload()) : null,
  ]);
  return page;
}
