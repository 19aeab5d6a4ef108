// Turning statistics answers into chart input. The endpoints leave out intervals without any count;
// a line drawn only through the others would climb across hours of silence, so every interval of
// the range is given, at zero where none was counted.
import type { Series } from '../components/chart.ts';
import type { Range } from './range.ts';

export function filledSeries(label: string, points: Record<string, number>, range: Range): Series {
  const filled: Record<string, number> = {};
  for (let start = range.from; start < range.to; start += range.step) filled[String(start * 1000)] = points[String(start * 1000)] ?? 0;
  // An interval the range did not foresee (a clock skewed from the server's) is still drawn.
  for (const [key, count] of Object.entries(points)) filled[key] = count;
  return { label, points: filled };
}

/** Counts by name, the largest first (ties by name), for a bar chart. */
export function ranked(counts: Record<string, number>): [label: string, count: number][] {
  return Object.entries(counts).sort(([a, m], [b, n]) => n - m || a.localeCompare(b));
}

const numbers = new Intl.NumberFormat('en');

export const formatCount = (n: number): string => numbers.format(n);

/** "1 query" / "17 queries". */
export const counted = (n: number, one: string, many: string): string => `${formatCount(n)} ${n === 1 ? one : many}`;
