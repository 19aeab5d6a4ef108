// One edgeplane server, RRset upserts in successive rounds, a line per round: a rate that changes as
// a run goes on, which one 10 s scenario of run.ts averages away (on PostgreSQL, session 24 found
// a zone's writes slowing round after round as its journal's dead entries piled up). run.ts is the
// comparison with PowerDNS; this watches one store over time.
//
//   node bench/api/rounds.ts [--postgres URL] [--rounds 6] [--seconds 5] [--clients 8] [--rrsets 2000] [--same] [--cpu-prof DIR]
//
// `--same`: each client rewrites one name of its own (updates of existing RRsets) instead of
// writing fresh names. Run by hand, never from `npm test`; see bench/README.md.
import { parseArgs } from 'node:util';
import { startEdgeplane } from './edgeplane.ts';
import { closedLoop } from './load.ts';
import { cpuProfArgs } from './server.ts';
import { cpuSeconds } from './proc-cpu.ts';

const { values: flags } = parseArgs({
  options: {
    postgres: { type: 'string' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '5' },
    clients: { type: 'string', default: '8' },
    rrsets: { type: 'string', default: '2000' },
    same: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
});
const [rounds, seconds, clients, rrsets] = [flags.rounds, flags.seconds, flags.clients, flags.rrsets].map(Number) as [number, number, number, number];
if (![rounds, seconds, clients, rrsets].every((n) => Number.isInteger(n) && n > 0)) {
  console.error('usage: node bench/api/rounds.ts [--postgres URL] [--rounds 6] [--seconds 5] [--clients 8] [--rrsets 2000] [--same] [--cpu-prof DIR]');
  process.exit(2);
}

// --cpu-prof: one profile per thread in DIR, written when the server stops (its CPU figures then include the profiler).
const server = await startEdgeplane({ postgres: flags.postgres, nodeArgs: cpuProfArgs(flags['cpu-prof']) });
try {
  await server.load(rrsets);
  console.log(`edgeplane ${server.version}: ${server.durability}; ${String(clients)} clients, ${flags.same ? 'each rewriting one name' : 'fresh names'}, ${String(seconds)} s rounds`);
  for (let round = 0; round < rounds; round++) {
    const base = (round + 1) * 10_000_000;
    const before = cpuSeconds(server.pid);
    const result = await closedLoop(server.endpoint, clients, seconds * 1000, (c, i) => {
      const spec = server.upsert(base + c * 100_000 + i);
      // The address still changes with i, so every write is a change.
      return flags.same ? { ...spec, path: spec.path.replace(/host\d+/, `same${String(c)}`) } : spec;
    });
    const cpuMs = (cpuSeconds(server.pid) - before) * 1000;
    console.log(
      `round ${String(round + 1)}: ${(result.ok / seconds).toFixed(0)} upserts/s, ${String(result.errors)} errors, ` +
        `server CPU ${(cpuMs / result.ok).toFixed(3)} ms/upsert, p50 ${result.latency.p50.toFixed(2)} ms, p99 ${result.latency.p99.toFixed(2)} ms`,
    );
  }
} finally {
  await server.stop();
}
