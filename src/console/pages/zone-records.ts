// The zone page's table of RRsets: filter by name and type, open one in the editor, delete one.
// It renders at once and fills itself when the list arrives, so the rest of the zone page does not
// wait for a large zone's records.
import '../styles/rrsets.css';
import { describeError, segment } from '../api.ts';
import { h, replace, uniqueId } from '../dom.ts';
import { confirmAction } from '../components/dialog.ts';
import { field, input, select } from '../components/field.ts';
import { formError, run } from '../components/form.ts';
import { notify } from '../components/notice.ts';
import { href, type PageContext } from '../router.ts';
import { contentLine, editorRoute, failoverLine, pickersLine, pickersOf, relativeName, rrsetPath, type Meta, type Rrset } from '../rrsets/model.ts';
import { typeNames } from '../rrsets/record-types.ts';

const pageSize = 100;

/** The zone page's RRset table; `zone` is the zone's name. */
export function recordsSection(ctx: PageContext, zone: string): HTMLElement {
  const headingId = uniqueId('records');
  const body = h('div', { 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Loading record sets…'));
  const heading = h('h2', { id: headingId, tabindex: -1 }, 'Record sets');
  const section = h('section', { class: 'records', 'aria-labelledby': headingId }, heading, body);

  const load = async (keep?: { name: string; type: string; page: number }): Promise<void> => {
    try {
      const list = await ctx.api.get<{ rrsets: Rrset[] }>(`/dns/v2/zones/${segment(zone)}/rrsets`, { order_by: 'name' });
      replace(body, recordsTable(ctx, zone, list.rrsets, keep, load));
      // After a delete the focused button is gone: keyboard users go on from the section's heading.
      if (keep !== undefined) heading.focus();
    } catch (error) {
      replace(body, h('p', { role: 'alert', class: 'form-error' }, `The record sets could not be loaded: ${describeError(error)}`));
    }
    body.removeAttribute('aria-busy');
  };
  void load();
  return section;
}

type Reload = (keep: { name: string; type: string; page: number }) => Promise<void>;

function recordsTable(ctx: PageContext, zone: string, rrsets: Rrset[], keep: { name: string; type: string; page: number } | undefined, reload: Reload): HTMLElement {
  const canWrite = ctx.session.canWrite();
  const types = [...new Set([...typeNames, ...rrsets.map((r) => r.type)])];
  const nameFilter = input({ type: 'search', value: keep?.name ?? '', placeholder: 'www', autocomplete: 'off' });
  const typeFilter = select([['', 'All types'], ...types.map((t): [string, string] => [t, t])], keep?.type ?? '');
  const count = h('p', { class: 'muted', role: 'status' });
  const rows = h('tbody');
  const pager = h('div', { class: 'pager' });
  let page = keep?.page ?? 0;

  const matching = (): Rrset[] => {
    const text = nameFilter.value.trim().toLowerCase().replace(/\.$/, '');
    return rrsets.filter((r) => (typeFilter.value === '' || r.type === typeFilter.value) && (text === '' || r.name.includes(text) || relativeName(r.name, zone).includes(text)));
  };

  const render = (): void => {
    const shown = matching();
    const pages = Math.max(1, Math.ceil(shown.length / pageSize));
    page = Math.min(page, pages - 1);
    count.textContent =
      shown.length === rrsets.length ? `${rrsets.length} record set${rrsets.length === 1 ? '' : 's'}` : `${shown.length} of ${rrsets.length} record sets match`;
    replace(
      rows,
      shown.length === 0 ? h('tr', null, h('td', { colspan: 6, class: 'muted' }, 'No record set matches.')) : shown.slice(page * pageSize, (page + 1) * pageSize).map(row),
    );
    replace(
      pager,
      pages === 1
        ? null
        : [
            h('button', { type: 'button', class: 'secondary', disabled: page === 0, onclick: () => turn(-1) }, 'Previous'),
            h('span', null, `Page ${page + 1} of ${pages}`),
            h('button', { type: 'button', class: 'secondary', disabled: page === pages - 1, onclick: () => turn(1) }, 'Next'),
          ],
    );
  };
  const turn = (by: number): void => {
    page += by;
    render();
  };

  const remove = async (rrset: Rrset): Promise<void> => {
    if (!(await confirmAction(`Delete the record set ${rrset.name} ${rrset.type} and its ${rrset.resource_records.length} record(s)?`, 'Delete'))) return;
    await run(wrapper, async () => {
      await ctx.api.delete(rrsetPath(zone, rrset.name, rrset.type));
      notify(`Record set ${rrset.name} ${rrset.type} deleted`);
      await reload({ name: nameFilter.value, type: typeFilter.value, page });
    });
  };

  const row = (rrset: Rrset): HTMLTableRowElement => {
    const pickers = pickersOf(rrset);
    const failover = failoverLine(rrset.meta);
    // The service keeps the apex NS: it can be replaced, not deleted.
    const deletable = !(rrset.type === 'NS' && rrset.name === zone);
    return h(
      'tr',
      null,
      h('th', { scope: 'row', class: 'rrset-name' }, rrset.name),
      h('td', null, rrset.type),
      h('td', null, rrset.ttl),
      h(
        'td',
        { class: 'content' },
        h(
          'ul',
          { class: 'record-lines' },
          rrset.resource_records.map((record) =>
            h(
              'li',
              { class: record.enabled ? null : 'record-off' },
              h('span', { class: 'mono' }, contentLine(record.content)),
              record.enabled ? null : h('span', { class: 'status status-disabled' }, 'disabled'),
              metaLine(record.meta),
            ),
          ),
        ),
      ),
      h('td', null, pickers.length === 0 && failover === undefined ? h('span', { class: 'muted' }, 'static') : [pickersLine(pickers), failover === undefined ? null : h('div', { class: 'muted' }, failover)]),
      h(
        'td',
        { class: 'row-actions' },
        h('a', { href: href(editorRoute(zone, rrset.name, rrset.type)), 'aria-label': `${canWrite ? 'Edit' : 'View'} ${rrset.name} ${rrset.type}` }, canWrite ? 'Edit' : 'View'),
        canWrite && deletable
          ? h('button', { type: 'button', class: 'link', 'data-write': true, 'aria-label': `Delete ${rrset.name} ${rrset.type}`, onclick: () => void remove(rrset) }, 'Delete')
          : null,
      ),
    );
  };

  nameFilter.addEventListener('input', () => {
    page = 0;
    render();
  });
  typeFilter.addEventListener('change', () => {
    page = 0;
    render();
  });
  const wrapper = h(
    'div',
    null,
    h(
      'div',
      { class: 'toolbar' },
      field({ label: 'Filter by name', path: 'filter.name', control: nameFilter }),
      field({ label: 'Filter by type', path: 'filter.type', control: typeFilter }),
      canWrite ? h('a', { class: 'button', href: href(`/zones/${segment(zone)}/rrsets/new`), 'data-write': true }, 'Add record set') : null,
    ),
    count,
    formError(),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'rrsets' },
        h('thead', null, h('tr', null, ...['Name', 'Type', 'TTL', 'Records', 'Pickers', 'Actions'].map((title) => h('th', { scope: 'col' }, title)))),
        rows,
      ),
    ),
    pager,
  );
  render();
  return wrapper;
}

/** "US, DE · weight 10 · backup": what a record's meta gives the pickers, in short. */
function metaLine(meta: Meta): HTMLElement | null {
  const parts: string[] = [];
  const list = (key: string, label: string): void => {
    const value = meta[key];
    if (Array.isArray(value) && value.length > 0) parts.push(`${label} ${value.map(String).join(', ')}`);
  };
  list('countries', '');
  list('continents', '');
  list('regions', '');
  list('asn', 'AS');
  list('ip', '');
  if (typeof meta['weight'] === 'number') parts.push(`weight ${meta['weight']}`);
  for (const flag of ['default', 'backup', 'fallback']) if (meta[flag] === true) parts.push(flag);
  return parts.length === 0 ? null : h('span', { class: 'record-meta-line muted' }, parts.map((p) => p.trim()).join(' · '));
}
