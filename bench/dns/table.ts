// Number formats and a plain-text table with the servers side by side.

export const fmt = {
  int: (v: number) => (Number.isNaN(v) ? '–' : Math.round(v).toLocaleString('en-US')),
  fixed: (digits: number) => (v: number) => (Number.isNaN(v) ? '–' : v.toFixed(digits)),
  /** Two or three significant figures. */
  num: (v: number) => (Number.isNaN(v) ? '–' : v >= 100 ? Math.round(v).toLocaleString('en-US') : v >= 10 ? v.toFixed(1) : v.toFixed(2)),
  mib: (kib: number) => (Number.isNaN(kib) ? '–' : (kib / 1024).toFixed(kib < 10 * 1024 ? 1 : 0)),
  ratio: (a: number, b: number) => {
    const r = a / b;
    if (!Number.isFinite(r)) return '–';
    return `${r >= 10 ? r.toFixed(0) : r >= 0.1 ? r.toFixed(2) : r.toPrecision(2)}×`;
  },
};

export function printTable(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

/** A metric row: each server's value, then the first ÷ each of the others (blank when `ratios` is false). */
export function row(label: string, values: number[], format: (v: number) => string, ratios = true): string[] {
  const [ours, ...theirs] = values;
  return [label, ...values.map(format), ...theirs.map((v) => (ratios ? fmt.ratio(ours!, v) : ''))];
}
