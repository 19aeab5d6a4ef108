// The busiest zones or resources of a range: a table with each one's share of the whole, as a
// number and as a meter (a native element, so no inline style is needed to draw it; hidden from
// screen readers, which read the number).
import { h, type Child } from '../dom.ts';
import { formatCount } from './series.ts';

export interface TopRow {
  /** The first cell: usually a link to the zone or resource. */
  name: Child;
  count: number;
}

export function topTable(caption: string, columns: { name: string; count: string }, rows: TopRow[], total: number): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'dashboard-top' },
      h('caption', null, caption),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, columns.name), h('th', { scope: 'col', class: 'num' }, columns.count), h('th', { scope: 'col' }, 'Share'))),
      h(
        'tbody',
        null,
        rows.map((row) => {
          const share = total > 0 ? row.count / total : 0;
          const percent = `${(share * 100).toFixed(share >= 0.1 || share === 0 ? 0 : 1)}%`;
          return h(
            'tr',
            null,
            h('th', { scope: 'row' }, row.name),
            h('td', { class: 'num' }, formatCount(row.count)),
            h('td', { class: 'share' }, h('meter', { min: 0, max: 1, value: share, 'aria-hidden': 'true' }), ' ', percent),
          );
        }),
      ),
    ),
  );
}
