// The DNS half of the dashboard: the account's queries over time, in total and for its busiest
// zones, by record type and response code, and the busiest zones. Loaded first and drawn after, in
// one go: a chart measures its place when drawn, so it is built when the page can show it.
import { segment, type Api } from '../api.ts';
import { unlessGone } from './gone.ts';
import { barChart, timeChart } from '../components/chart.ts';
import { h, uniqueId } from '../dom.ts';
import { href } from '../router.ts';
import type { IntervalCounts, QueriesSummary } from './model.ts';
import { seriesQuery, summaryQuery, type Range } from './range.ts';
import { counted, filledSeries, ranked } from './series.ts';
import { topTable } from './top-table.ts';

/** Zones drawn one by one over time: more lines than this are hard to tell apart. */
const zonesDrawn = 5;

export interface DnsData {
  summary: QueriesSummary;
  all: IntervalCounts;
  zones: { name: string; counts: IntervalCounts }[];
}

export async function loadDns(api: Api, range: Range): Promise<DnsData> {
  const [summary, all] = await Promise.all([
    api.get<QueriesSummary>('/dns/v2/statistics/summary', summaryQuery(range)),
    api.get<IntervalCounts>('/dns/v2/zones/all/statistics', seriesQuery(range)),
  ]);
  // One zone's line would repeat the total's.
  const drawn = summary.top_zones.length > 1 ? summary.top_zones.slice(0, zonesDrawn) : [];
  const zones = await Promise.all(drawn.map(async ({ name }) => ({ name, counts: await unlessGone(api.get<IntervalCounts>(`/dns/v2/zones/${segment(name)}/statistics`, seriesQuery(range))) })));
  return { summary, all, zones: zones.flatMap((z) => (z.counts === undefined ? [] : [{ name: z.name, counts: z.counts }])) };
}

export function dnsPanel(data: DnsData, range: Range): HTMLElement {
  const { summary } = data;
  const heading = h('h2', { id: uniqueId('dashboard-dns') }, 'DNS queries');
  if (summary.total === 0) {
    return h('section', { class: 'dashboard-panel', 'aria-labelledby': heading.id }, heading, h('p', { class: 'muted dashboard-empty' }, 'No queries in this range.'));
  }
  return h(
    'section',
    { class: 'dashboard-panel', 'aria-labelledby': heading.id },
    heading,
    h('p', { class: 'dashboard-total' }, `${counted(summary.total, 'query', 'queries')} ${range.span.phrase}`),
    h(
      'div',
      { class: 'charts' },
      timeChart('Queries over time', [filledSeries('Total', data.all.requests, range)]),
      data.zones.length > 0 ? timeChart('Queries per zone', data.zones.map((z) => filledSeries(z.name, z.counts.requests, range))) : null,
      barChart('Queries by record type', ranked(summary.by_record_type)),
      barChart('Queries by response code', ranked(summary.by_response_code)),
    ),
    topTable(
      'Top zones',
      { name: 'Zone', count: 'Queries' },
      summary.top_zones.map((z) => ({ name: h('a', { href: href(`/zones/${segment(z.name)}`) }, z.name), count: z.requests })),
      summary.total,
    ),
  );
}
