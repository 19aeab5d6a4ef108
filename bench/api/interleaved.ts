// Two checkouts of edgeplane side by side, RRset upserts in short turns: a change to the write path
// against the commit before it, on a machine whose other load moves bench/api's figures by a
// quarter from one run to the next. Both servers run at once and take turns (2 s each, the order
// swapped every round), so a slow minute of the machine falls on both; each turn's first rounds
// warm the JIT and are not counted.
//
//   node bench/api/interleaved.ts --base /path/to/other/checkout [--rounds 16] [--seconds 2] [--clients 8] [--rrsets 2000] [--postgres URL]
//
// `--base` is another checkout (a `git worktree`, with `npm ci` run or node_modules linked). Run by
// hand, never from `npm test`; see bench/README.md.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startEdgeplane } from './edgeplane.ts';
import { closedLoop, type LoadResult } from './load.ts';
import { cpuSeconds } from './proc-cpu.ts';
import type { BenchServer } from './server.ts';

const { values: flags } = parseArgs({
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '2' },
    clients: { type: 'string', default: '8' },
    rrsets: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '2' },
    postgres: { type: 'string' },
  },
});
const [rounds, seconds, clients, rrsets, warmup] = [flags.rounds, flags.seconds, flags.clients, flags.rrsets, flags.warmup].map(Number) as [number, number, number, number, number];
if (flags.base === undefined || ![rounds, seconds, clients, rrsets].every((n) => Number.isInteger(n) && n > 0) || !Number.isInteger(warmup) || warmup < 0) {
  console.error('usage: node bench/api/interleaved.ts --base CHECKOUT [--rounds 16] [--seconds 2] [--clients 8] [--rrsets 2000] [--warmup 2] [--postgres URL]');
  process.exit(2);
}

interface Side {
  label: string;
  server: BenchServer;
  /** Counted turns: upserts, the server's CPU seconds, and each turn's CPU ms per upsert and p99. */
  ok: number;
  cpuS: number;
  perUpsertMs: number[];
  p99Ms: number[];
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[values.length >> 1] ?? NaN;

const sides: Side[] = [];
try {
  for (const [label, checkout] of [[`base ${path.resolve(flags.base)}`, path.resolve(flags.base)], ['this checkout', undefined]] as const) {
    const server = await startEdgeplane({ postgres: flags.postgres, ...(checkout === undefined ? {} : { checkout }) });
    sides.push({ label: `${label} (${server.version})`, server, ok: 0, cpuS: 0, perUpsertMs: [], p99Ms: [] });
    await server.load(rrsets);
  }
  let turn = 0;
  for (let round = -warmup; round < rounds; round++) {
    for (const side of round % 2 === 0 ? sides : sides.toReversed()) {
      const base = ++turn * 10_000_000;
      const before = cpuSeconds(side.server.pid);
      const result: LoadResult = await closedLoop(side.server.endpoint, clients, seconds * 1000, (c, i) => side.server.upsert(base + c * 100_000 + i));
      const cpuS = cpuSeconds(side.server.pid) - before;
      if (round < 0 || result.ok === 0) continue;
      side.ok += result.ok;
      side.cpuS += cpuS;
      side.perUpsertMs.push((cpuS * 1000) / result.ok);
      side.p99Ms.push(result.latency.p99);
      if (result.errors > 0) console.log(`${side.label}: ${String(result.errors)} errors in a turn`);
    }
  }
  console.log(`RRset upserts, ${String(clients)} clients, ${String(rounds)} turns of ${String(seconds)} s each${flags.postgres === undefined ? '' : ', PostgreSQL'}`);
  for (const side of sides) {
    console.log(
      `${side.label}: ${(side.ok / (rounds * seconds)).toFixed(0)} upserts/s, ${((side.cpuS * 1000) / side.ok).toFixed(3)} ms CPU per upsert (turns' median ${median(side.perUpsertMs).toFixed(3)}), p99 turns' median ${median(side.p99Ms).toFixed(1)} ms`,
    );
  }
  const [base, ours] = sides as [Side, Side];
  console.log(`this checkout ÷ base: upserts/s ${(ours.ok / base.ok).toFixed(2)}×, CPU per upsert ${((ours.cpuS / ours.ok) / (base.cpuS / base.ok)).toFixed(2)}×`);
} finally {
  for (const side of sides) await side.server.stop();
}
