// edgeplane's proxy alone, WAF off, on, and on with unique targets, in rounds: a line per round with
// the proxy's CPU per request (and the user time in it), so that what the WAF adds inside the proxy
// can be watched, and profiled, without ModSecurity, Apache or the corpora of run.ts. The setup is
// run.ts's (the same origin, resources and pinning), the load its benign corpus through wrk.
//
//   node bench/waf/proxy-rounds.ts [--rounds 3] [--seconds 6] [--warmup 2] [--runs off,on,unique] [--cpu-prof DIR]
//
// `--cpu-prof DIR`: the proxy runs with --cpu-prof (its one thread: a profile in DIR when it stops;
// its CPU figures then include the profiler). Run by hand, never from `npm test`; see README.md.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { cpuProfArgs, sleep } from '../api/server.ts';
import { benchCpus, findProgram, requirePrerequisites } from '../dns/server.ts';
import { cpuMicrosPerRequest, requestsPerSecond, wrk, type LoadRun } from '../proxy/load-run.ts';
import { benchRun } from '../proxy/server.ts';
import { crsRulesDir } from './apache.ts';
import { benignRequests } from './benign-corpus.ts';
import { benignScripts, startWafEdgeplane } from './edgeplane-waf.ts';

const runKinds = ['off', 'on', 'unique'] as const;
type RunKind = (typeof runKinds)[number];

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '6' },
    warmup: { type: 'string', default: '2' },
    runs: { type: 'string', default: runKinds.join(',') },
    'cpu-prof': { type: 'string' },
  },
});
const [rounds, seconds, warmup] = [flags.rounds, flags.seconds, flags.warmup].map(Number) as [number, number, number];
const runs = flags.runs.split(',');
if (!(Number.isInteger(rounds) && rounds > 0 && seconds > 0 && warmup >= 0) || !runs.every((r): r is RunKind => (runKinds as readonly string[]).includes(r))) {
  console.error('usage: node bench/waf/proxy-rounds.ts [--rounds 3] [--seconds 6] [--warmup 2] [--runs off,on,unique] [--cpu-prof DIR]');
  process.exit(2);
}

requirePrerequisites(
  ['nginx', 'wrk', 'taskset'].every((p) => findProgram(p) !== undefined) && fs.existsSync(crsRulesDir)
    ? undefined
    : 'This needs nginx (the origin), wrk, taskset and the Core Rule Set: apt-get install -y nginx wrk util-linux modsecurity-crs',
);

// As run.ts: the proxy on CPU 0, wrk and the origin on CPU 1.
const { serverCpus, clientCpus } = benchCpus();
const { tmp, running, cleanup } = benchRun('edgeplane-waf-rounds-');

try {
  const { proxy } = await startWafEdgeplane({ tmp, running }, { taken: new Set(), proxyCpus: serverCpus, clientCpus, nodeArgs: cpuProfArgs(flags['cpu-prof']) });
  const scripts: Record<RunKind, string> = benignScripts(benignRequests());
  const load = (kind: RunKind, s: number): Promise<LoadRun> =>
    wrk({ url: `http://127.0.0.1:${String(proxy.httpPort)}/`, connections: 16, seconds: s, script: scripts[kind], cpus: clientCpus, serverPid: proxy.pid, dir: tmp });
  console.log(`${proxy.description}\nwrk -t1 -c16, the benign corpus in turn; ${String(seconds)} s a run after ${String(warmup)} s of warm-up; CPU µs per request (user µs in it)`);
  for (let round = 1; round <= rounds; round++) {
    const line: string[] = [];
    for (const kind of runs) {
      if (warmup > 0) await load(kind, warmup);
      const run = await load(kind, seconds);
      const user = (run.proxyCpu.userS * 1e6) / run.requests;
      line.push(`${kind} ${cpuMicrosPerRequest(run).toFixed(1)} (${user.toFixed(1)}) at ${requestsPerSecond(run).toFixed(0)}/s`);
      await sleep(300);
    }
    console.log(`round ${String(round)}: ${line.join(' | ')}`);
  }
} finally {
  await cleanup();
}
