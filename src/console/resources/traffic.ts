// A resource's traffic through the protection proxy: requests over time and how the proxy ended
// them (passed, blacklist, rate_limit, …), for the last hour, day or week. The proxy writes its
// counts every EDGEPLANE_STATS_FLUSH seconds (10 by default), so Refresh picks up what came since.
import { describeError, segment, type Api } from '../api.ts';
import { h, replace, uniqueId } from '../dom.ts';
import { barChart, granularityFor, timeChart } from '../components/chart.ts';
import { select } from '../components/field.ts';
import type { RequestStatistics } from './types.ts';

const ranges: [key: string, label: string, seconds: number][] = [
  ['1h', 'Last hour', 3600],
  ['24h', 'Last 24 hours', 86_400],
  ['7d', 'Last 7 days', 7 * 86_400],
];

/** Seconds of a granularity the chart helper chose: `5m`, `1h`. */
function seconds(granularity: string): number {
  const amount = Number.parseInt(granularity, 10);
  return granularity.endsWith('h') ? amount * 3600 : amount * 60;
}

export function trafficView(api: Api, resourceId: number, initialRange: string | null): HTMLElement {
  const rangeId = uniqueId('range');
  const range = select(
    ranges.map(([key, label]) => [key, label]),
    ranges.some(([key]) => key === initialRange) ? (initialRange ?? '24h') : '24h',
    { id: rangeId },
  );
  const results = h('div', { class: 'traffic-results', 'aria-live': 'polite' });

  let latest = 0;
  const load = async (): Promise<void> => {
    // Answers may come back out of order when the range changes quickly: the last asked wins.
    const ticket = ++latest;
    const span = ranges.find(([key]) => key === range.value)?.[2] ?? 86_400;
    const granularity = granularityFor(span);
    const step = seconds(granularity);
    const to = Math.floor(Date.now() / 1000);
    // Intervals start at `from` (a minute's start): the zero intervals the API leaves out are filled
    // in from there, so the line drops to 0 where nothing came instead of joining distant points.
    const from = Math.floor((to - span) / 60) * 60;
    results.setAttribute('aria-busy', 'true');
    try {
      const stats = await api.get<RequestStatistics>(`/security/resources/${segment(resourceId)}/statistics`, { from, to, granularity });
      if (ticket !== latest) return;
      const points: Record<string, number> = {};
      for (let t = from; t < to; t += step) points[String(t * 1000)] = stats.requests[String(t * 1000)] ?? 0;
      const outcomes = Object.entries(stats.outcomes).sort((a, b) => b[1] - a[1]);
      replace(
        results,
        h('p', { class: 'traffic-total' }, `${String(stats.total)} requests in this range.`),
        stats.total === 0
          ? h('p', { class: 'muted' }, 'Nothing counted yet: the proxy writes its counts every few seconds.')
          : [
              h('div', { class: 'charts' }, timeChart('Requests over time', [{ label: 'Requests', points }]), barChart('Outcomes', outcomes)),
              h(
                'div',
                { class: 'table-wrap' },
                h(
                  'table',
                  { class: 'outcomes' },
                  h('caption', { class: 'muted' }, 'How the proxy ended the requests'),
                  h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Outcome'), h('th', { scope: 'col' }, 'Requests'), h('th', { scope: 'col' }, 'Share'))),
                  h(
                    'tbody',
                    null,
                    outcomes.map(([outcome, count]) =>
                      h('tr', null, h('td', { class: 'mono' }, outcome), h('td', null, count), h('td', null, `${(Math.round((count / stats.total) * 1000) / 10).toString()} %`)),
                    ),
                  ),
                ),
              ),
            ],
      );
    } catch (error) {
      if (ticket !== latest) return;
      replace(results, h('p', { class: 'form-error', role: 'alert' }, describeError(error)));
    } finally {
      if (ticket === latest) results.removeAttribute('aria-busy');
    }
  };
  range.addEventListener('change', () => void load());
  void load();

  return h(
    'section',
    { class: 'traffic', 'aria-labelledby': `${rangeId}-heading` },
    h('h2', { id: `${rangeId}-heading` }, 'Traffic'),
    h(
      'div',
      { class: 'toolbar' },
      h('div', { class: 'field' }, h('label', { for: rangeId }, 'Range'), range),
      h('button', { type: 'button', class: 'secondary', onclick: () => void load() }, 'Refresh'),
    ),
    results,
  );
}
