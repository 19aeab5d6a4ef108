// The protection proxy's half of the dashboard: requests to the account's resources over time, in
// total and for the busiest resources, by outcome, and the busiest resources. Loaded first and
// drawn after, as the DNS half is (dns-panel.ts).
import type { Api } from '../api.ts';
import { unlessGone } from './gone.ts';
import { barChart, timeChart } from '../components/chart.ts';
import { h, uniqueId } from '../dom.ts';
import { href } from '../router.ts';
import type { RequestCounts, RequestsSummary } from './model.ts';
import { seriesQuery, summaryQuery, type Range } from './range.ts';
import { counted, filledSeries, ranked } from './series.ts';
import { topTable } from './top-table.ts';

const resourcesDrawn = 5;

export interface ProxyData {
  summary: RequestsSummary;
  all: RequestCounts;
  resources: { name: string; counts: RequestCounts }[];
}

export async function loadProxy(api: Api, range: Range): Promise<ProxyData> {
  const [summary, all] = await Promise.all([
    api.get<RequestsSummary>('/security/statistics/summary', summaryQuery(range)),
    api.get<RequestCounts>('/security/statistics', seriesQuery(range)),
  ]);
  const drawn = summary.top_resources.length > 1 ? summary.top_resources.slice(0, resourcesDrawn) : [];
  const resources = await Promise.all(drawn.map(async ({ id, name }) => ({ name, counts: await unlessGone(api.get<RequestCounts>(`/security/resources/${String(id)}/statistics`, seriesQuery(range))) })));
  return { summary, all, resources: resources.flatMap((r) => (r.counts === undefined ? [] : [{ name: r.name, counts: r.counts }])) };
}

export function proxyPanel(data: ProxyData, range: Range): HTMLElement {
  const { summary } = data;
  const heading = h('h2', { id: uniqueId('dashboard-proxy') }, 'Protected resources');
  if (summary.total === 0) {
    return h('section', { class: 'dashboard-panel', 'aria-labelledby': heading.id }, heading, h('p', { class: 'muted dashboard-empty' }, 'No requests in this range.'));
  }
  return h(
    'section',
    { class: 'dashboard-panel', 'aria-labelledby': heading.id },
    heading,
    h('p', { class: 'dashboard-total' }, `${counted(summary.total, 'request', 'requests')} ${range.span.phrase}`),
    h(
      'div',
      { class: 'charts' },
      timeChart('Requests over time', [filledSeries('Total', data.all.requests, range)]),
      data.resources.length > 0 ? timeChart('Requests per resource', data.resources.map((r) => filledSeries(r.name, r.counts.requests, range))) : null,
      barChart('Requests by outcome', ranked(summary.by_outcome)),
    ),
    topTable(
      'Top resources',
      { name: 'Resource', count: 'Requests' },
      summary.top_resources.map((r) => ({ name: h('a', { href: href(`/resources/${String(r.id)}`) }, r.name), count: r.requests })),
      summary.total,
    ),
  );
}
