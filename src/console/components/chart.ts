// Charts drawn by uPlot (made for time series, no inline styles needed). The statistics endpoints
// answer {"requests": {"<bucket start, ms>": n}}; a chart takes one or more such series.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { h } from '../dom.ts';

export interface Series {
  label: string;
  /** bucket start in ms → count */
  points: Record<string, number>;
}

const palette = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d'];

/** A line chart of counts over time; its figure holds a text summary for screen readers. */
export function timeChart(title: string, series: Series[], height = 220): HTMLElement {
  const times = [...new Set(series.flatMap((s) => Object.keys(s.points)))].map(Number).sort((a, b) => a - b);
  const data: uPlot.AlignedData = [times.map((t) => t / 1000), ...series.map((s) => times.map((t) => s.points[String(t)] ?? 0))];
  const total = series.map((s) => `${s.label}: ${Object.values(s.points).reduce((a, b) => a + b, 0)}`).join(', ');
  const holder = h('div', { class: 'chart' });
  const figure = h('figure', { class: 'chart-figure' }, holder, h('figcaption', null, `${title} — ${total}`));
  const plot = new uPlot(
    {
      width: 600,
      height,
      series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: palette[i % palette.length], width: 2, points: { show: times.length < 60 } }))],
      axes: [{}, { size: 60 }],
      scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    },
    data,
    holder,
  );
  fitWidth(holder, plot);
  return figure;
}

/** A bar chart of counts by category (record type, response code, zone). */
export function barChart(title: string, counts: [label: string, count: number][], height = 220): HTMLElement {
  const labels = counts.map(([label]) => label);
  const holder = h('div', { class: 'chart' });
  const figure = h('figure', { class: 'chart-figure' }, holder, h('figcaption', null, `${title} — ${counts.map(([l, n]) => `${l}: ${n}`).join(', ') || 'none'}`));
  const bars = uPlot.paths.bars?.({ size: [0.6, 64] });
  const plot = new uPlot(
    {
      width: 600,
      height,
      series: [{}, { label: title, fill: palette[0], stroke: palette[0], paths: bars, points: { show: false } }],
      scales: { x: { time: false, range: (_u, _min, _max) => [-0.5, Math.max(0.5, labels.length - 0.5)] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [{ splits: () => labels.map((_l, i) => i), values: (_u, splits) => splits.map((i) => labels[i] ?? ''), grid: { show: false } }, { size: 60 }],
      legend: { show: false },
    },
    [labels.map((_l, i) => i), counts.map(([, n]) => n)],
    holder,
  );
  fitWidth(holder, plot);
  return figure;
}

/** uPlot draws at a fixed size; this keeps the chart as wide as its place, down to a phone's width. */
function fitWidth(holder: HTMLElement, plot: uPlot): void {
  let shown = false;
  const observer = new ResizeObserver(() => {
    // A page left behind reports size 0 once it is detached: the chart goes with it. A chart not
    // yet placed (its page still loading) is not left behind.
    if (!holder.isConnected) {
      if (!shown) return;
      observer.disconnect();
      plot.destroy();
      return;
    }
    shown = true;
    const width = holder.clientWidth;
    if (width > 0 && width !== plot.width) plot.setSize({ width, height: plot.height });
  });
  observer.observe(holder);
}

/** Bucket size for a range: about 60–300 points whatever the span. */
export function granularityFor(seconds: number): string {
  if (seconds <= 3 * 3600) return '1m';
  if (seconds <= 24 * 3600) return '5m';
  if (seconds <= 7 * 86400) return '1h';
  return '6h';
}
