// The failover log of a health-checked RRset (GET .../failover/log): each change of a record's
// state, newest first, a page at a time. The service keeps the newest 100 changes per RRset.
import { describeError, type Api } from '../api.ts';
import { h, replace, uniqueId, type Child } from '../dom.ts';
import { rrsetPath } from './model.ts';

const pageSize = 10;

interface LogPage {
  log: { action: string; address: string; time: number }[];
  total_amount: number;
}

// To the second: checks run every few seconds, and changes come close together.
const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function failoverLog(api: Api, zone: string, name: string, type: string): HTMLElement {
  const titleId = uniqueId('failover-log');
  const body = h('div', { 'aria-live': 'polite' });
  let offset = 0;

  const load = async (): Promise<void> => {
    body.setAttribute('aria-busy', 'true');
    try {
      const page = await api.get<LogPage>(`${rrsetPath(zone, name, type)}/failover/log`, { offset, limit: pageSize });
      // Entries expire past the newest 100: a page left empty goes back to the last one there is.
      if (page.log.length === 0 && offset > 0 && page.total_amount > 0) {
        offset = Math.floor((page.total_amount - 1) / pageSize) * pageSize;
        await load();
        return;
      }
      replace(body, render(page));
    } catch (error) {
      replace(body, h('p', { role: 'alert', class: 'form-error' }, `The failover log could not be loaded: ${describeError(error)}`));
    }
    body.removeAttribute('aria-busy');
  };

  const turn = (to: number): void => {
    offset = Math.max(0, to);
    void load();
  };

  const render = (page: LogPage): Child[] => {
    if (page.total_amount === 0) return [h('p', { class: 'muted' }, 'No changes yet: every record has been up since its checks began.')];
    const last = offset + page.log.length;
    return [
      h('p', { class: 'muted' }, `Changes ${String(offset + 1)}–${String(last)} of ${String(page.total_amount)}, newest first`),
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'failover-log', 'aria-label': 'Failover log' },
          h('thead', null, h('tr', null, ...['Time', 'Address', 'Changed to'].map((t) => h('th', { scope: 'col' }, t)))),
          h(
            'tbody',
            null,
            page.log.map((entry) => {
              const at = new Date(entry.time * 1000);
              return h(
                'tr',
                null,
                h('td', null, h('time', { datetime: at.toISOString(), title: at.toISOString() }, format.format(at))),
                h('td', { class: 'mono' }, entry.address),
                h('td', null, h('span', { class: `status ${entry.action === 'up' ? 'status-on' : 'status-off'}` }, entry.action)),
              );
            }),
          ),
        ),
      ),
      page.total_amount > pageSize
        ? h(
            'nav',
            { class: 'pager', 'aria-label': 'Pages of the failover log' },
            h('button', { type: 'button', class: 'secondary', disabled: offset === 0, onclick: () => turn(offset - pageSize) }, 'Newer'),
            h('span', null, `Page ${String(Math.floor(offset / pageSize) + 1)} of ${String(Math.ceil(page.total_amount / pageSize))}`),
            h('button', { type: 'button', class: 'secondary', disabled: last >= page.total_amount, onclick: () => turn(offset + pageSize) }, 'Older'),
          )
        : null,
    ];
  };

  void load();
  return h(
    'section',
    { class: 'card', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, 'Failover log'),
    body,
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: () => void load() }, 'Refresh')),
  );
}
