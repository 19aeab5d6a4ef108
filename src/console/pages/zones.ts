// The zones of the account: search by name, pages, each zone's status at a glance, and the actions
// on a whole zone (create, enable/disable, delete). Search and paging redraw the list in place and
// keep the address in step (#/zones?name=shop&offset=20), so a reload or a shared link shows the
// same page without moving the keyboard focus away from the control just used.
import '../styles/zones.css';
import { describeError, queryString, segment } from '../api.ts';
import { h, replace } from '../dom.ts';
import { field, input, select } from '../components/field.ts';
import { href, type PageContext } from '../router.ts';
import { createZoneForm } from '../zones/create-zone.ts';
import type { Zone, ZoneList } from '../zones/model.ts';
import { deleteButton, toggleButton } from '../zones/zone-actions.ts';

const pageSizes = [10, 25, 50, 100];

interface ListState {
  name: string;
  offset: number;
  limit: number;
}

function stateFrom(query: URLSearchParams): ListState {
  const offset = Number(query.get('offset') ?? 0);
  const limit = Number(query.get('limit') ?? 25);
  return {
    name: query.get('name') ?? '',
    offset: Number.isInteger(offset) && offset >= 0 ? offset : 0,
    limit: pageSizes.includes(limit) ? limit : 25,
  };
}

export async function zonesPage(ctx: PageContext): Promise<HTMLElement> {
  const state = stateFrom(ctx.query);
  const canWrite = ctx.session.canWrite();

  const search = input({ type: 'search', name: 'name', value: state.name, autocomplete: 'off', spellcheck: 'false' });
  const perPage = select(
    pageSizes.map((n) => [String(n), String(n)]),
    String(state.limit),
  );
  const searchForm = h(
    'form',
    { class: 'toolbar', role: 'search', 'aria-label': 'Zones' },
    field({ label: 'Search by name', path: 'name', control: search }),
    field({ label: 'Per page', path: 'limit', control: perPage }),
    h('div', { class: 'field' }, h('button', { type: 'submit' }, 'Search')),
  );
  const summary = h('p', { class: 'muted', 'aria-live': 'polite' });
  const results = h('div', { class: 'zones-results' });
  let ticket = 0;

  const load = async (): Promise<void> => {
    const mine = ++ticket;
    let list: ZoneList;
    try {
      list = await ctx.api.get<ZoneList>('/dns/v2/zones', { name: state.name, offset: state.offset, limit: state.limit, order_by: 'name' });
    } catch (error) {
      if (mine !== ticket) return;
      replace(results, h('p', { role: 'alert', class: 'form-error' }, describeError(error)));
      return;
    }
    if (mine !== ticket) return;
    // A page emptied by deletions (or an old link): show the last page that has zones.
    if (list.zones.length === 0 && state.offset > 0 && list.total_amount > 0) {
      state.offset = Math.floor((list.total_amount - 1) / state.limit) * state.limit;
      keepAddress();
      await load();
      return;
    }
    render(list);
  };

  const keepAddress = (): void => {
    // Only while this page is the one shown: a late answer must not rewrite another page's address.
    if (!results.isConnected) return;
    const query = queryString({ name: state.name, offset: state.offset || undefined, limit: state.limit === 25 ? undefined : state.limit });
    history.replaceState(null, '', href(`/zones${query}`));
  };

  const go = (change: Partial<ListState>): void => {
    Object.assign(state, change);
    keepAddress();
    void load();
  };

  const render = (list: ZoneList): void => {
    const first = list.zones.length === 0 ? 0 : state.offset + 1;
    const last = state.offset + list.zones.length;
    summary.textContent =
      list.total_amount === 0
        ? state.name === ''
          ? 'No zones yet.'
          : `No zone name contains “${state.name}”.`
        : `Zones ${first}–${last} of ${list.total_amount}${state.name === '' ? '' : ` containing “${state.name}”`}`;
    const pages = Math.max(1, Math.ceil(list.total_amount / state.limit));
    const page = Math.floor(state.offset / state.limit) + 1;
    replace(
      results,
      list.zones.length === 0
        ? null
        : h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'zones-table', 'aria-label': 'Zones' },
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  h('th', { scope: 'col' }, 'Name'),
                  h('th', { scope: 'col' }, 'Status'),
                  h('th', { scope: 'col' }, 'DNSSEC'),
                  h('th', { scope: 'col' }, 'Serial'),
                  h('th', { scope: 'col' }, 'Record sets'),
                  canWrite ? h('th', { scope: 'col' }, 'Actions') : null,
                ),
              ),
              h('tbody', null, list.zones.map((zone) => row(zone))),
            ),
          ),
      list.total_amount > state.limit
        ? h(
            'nav',
            { class: 'pager', 'aria-label': 'Pages of zones' },
            h('button', { type: 'button', class: 'secondary', disabled: state.offset === 0, onclick: () => go({ offset: Math.max(0, state.offset - state.limit) }) }, 'Previous'),
            h('span', null, `Page ${page} of ${pages}`),
            h('button', { type: 'button', class: 'secondary', disabled: last >= list.total_amount, onclick: () => go({ offset: state.offset + state.limit }) }, 'Next'),
          )
        : null,
    );
  };

  const row = (zone: Zone): HTMLElement =>
    h(
      'tr',
      { 'data-zone': zone.name },
      h('th', { scope: 'row' }, h('a', { href: href(`/zones/${segment(zone.name)}`) }, zone.name)),
      h('td', null, h('span', { class: `status status-${zone.status}` }, zone.status)),
      h('td', null, h('span', { class: `status ${zone.dnssec_enabled ? 'status-on' : 'status-off'}` }, zone.dnssec_enabled ? 'on' : 'off')),
      h('td', { class: 'mono' }, zone.serial),
      h('td', null, zone.rrsets_amount?.total ?? ''),
      canWrite
        ? h(
            'td',
            null,
            h(
              'div',
              { class: 'zone-row-actions' },
              toggleButton(ctx.api, zone, { named: true, onDone: () => void load() }),
              deleteButton(ctx.api, zone, { named: true, onDone: () => void load() }),
            ),
          )
        : null,
    );

  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    go({ name: search.value.trim(), offset: 0, limit: Number(perPage.value) });
  });
  perPage.addEventListener('change', () => go({ name: search.value.trim(), offset: 0, limit: Number(perPage.value) }));

  await load();
  return h(
    'section',
    { class: 'zones-page' },
    h('h1', null, 'DNS zones'),
    searchForm,
    summary,
    results,
    canWrite ? createZoneForm(ctx.api, (name) => ctx.navigate(`/zones/${segment(name)}`)) : null,
  );
}
