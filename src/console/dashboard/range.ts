// The spans the dashboard offers, and the query each one sends: the statistics endpoints take Unix
// seconds and a granularity, and start their intervals at `from` rounded down to the minute.
import { granularityFor } from '../components/chart.ts';

export interface Span {
  key: string;
  label: string;
  /** How the summary lines name it: "in the last 24 hours". */
  phrase: string;
  seconds: number;
}

export const spans: Span[] = [
  { key: '1h', label: 'Last hour', phrase: 'in the last hour', seconds: 3600 },
  { key: '24h', label: 'Last 24 hours', phrase: 'in the last 24 hours', seconds: 86_400 },
  { key: '7d', label: 'Last 7 days', phrase: 'in the last 7 days', seconds: 7 * 86_400 },
];

export const defaultSpan = '24h';

export interface Range {
  span: Span;
  /** Unix seconds, a minute's start. */
  from: number;
  /** Unix seconds, exclusive. */
  to: number;
  granularity: string;
  /** Seconds an interval lasts. */
  step: number;
}

export function spanOf(key: string | null): Span {
  return spans.find((s) => s.key === key) ?? spans.find((s) => s.key === defaultSpan) ?? (spans[0] as Span);
}

/** The span ending now. */
export function rangeOf(span: Span, nowMs = Date.now()): Range {
  const to = Math.floor(nowMs / 1000);
  const from = Math.floor((to - span.seconds) / 60) * 60;
  const granularity = granularityFor(span.seconds);
  return { span, from, to, granularity, step: stepSeconds(granularity) };
}

/** `5m` → 300, `1h` → 3600: the few granularities granularityFor gives. */
function stepSeconds(granularity: string): number {
  const amount = Number(granularity.slice(0, -1));
  return amount * (granularity.endsWith('h') ? 3600 : 60);
}

/** The query of a series over the range. */
export const seriesQuery = (range: Range) => ({ from: range.from, to: range.to, granularity: range.granularity });

/** The query of a summary of the range. */
export const summaryQuery = (range: Range) => ({ from: range.from, to: range.to });
