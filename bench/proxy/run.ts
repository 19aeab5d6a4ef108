// Protection proxy benchmark: edgeplane against nginx configured with the same resources (lists,
// countries, a rate rule, weighted origins with a backup, one certificate), in front of one nginx
// origin, loaded by wrk and ab, side by side in one run.
//
//   node bench/proxy/run.ts [--duration 10] [--scenarios 1,2,3,4,4r,5] [--cpu-prof DIR]
//
// Run by hand, never from `npm test`: it takes a few minutes, needs nginx and the load tools
// installed, and its figures are only meaningful as ratios within one run. See bench/README.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuProfArgs, sleep } from '../api/server.ts';
import { edgeplaneVersion } from '../dns/edgeplane.ts';
import { fmt, printTable } from '../dns/table.ts';
import { makeCertificate } from './certificate.ts';
import { checkProxy, type CheckResult } from './check.ts';
import { createResources, resourceBody, startEdgeplaneProxy } from './edgeplane.ts';
import { clientPriority } from './client-process.ts';
import { mergePaced, pacedClientProcess, type PacedResult } from './legitimate-client.ts';
import { ab, cpuMicrosPerRequest, kernelShare, mergeRuns, requestsPerSecond, wrk, type LoadRun } from './load-run.ts';
import { startNginxProxy, startOrigin } from './nginx.ts';
import { startNodeFloor } from './node-floor.ts';
import { summariseProfiles, type Window } from './profile.ts';
import { allResources, benchResources, benchNames, type BenchResources } from './resources.ts';
import { freePort } from '../../test/support/free-port.ts';
import { benchRun, missingPrerequisites, useHosts, type ProxyServer } from './server.ts';
import { benchCpus, requirePrerequisites } from '../dns/server.ts';

const allScenarios = ['1', '2', '3', '4', '4r', '5'];
/** Scenarios only for --cpu-prof-scenarios: `5f`, the flood alone (what the proxy's refusals cost). */
const profileOnly = ['5f'];
const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: process.env['BENCH_DURATION'] ?? '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '64' },
    'ab-concurrency': { type: 'string', default: '16' },
    workers: { type: 'string', default: '1' },
    blacklist: { type: 'string', default: '1000' },
    'flood-rate': { type: 'string', default: '1000' },
    'legit-rate': { type: 'string', default: '200' },
    'legit-connections': { type: 'string', default: '4' },
    'flood-rounds': { type: 'string', default: '5' },
    scenarios: { type: 'string', default: allScenarios.join(',') },
    subject: { type: 'string', default: 'edgeplane' },
    'cpu-prof': { type: 'string' },
    'cpu-prof-scenarios': { type: 'string', default: '1' },
  },
});
const durationS = Number(flags.duration);
const warmupS = Number(flags.warmup);
const connections = Number(flags.connections);
const abConcurrency = Number(flags['ab-concurrency']);
const workers = Number(flags.workers);
const blacklistSize = Number(flags.blacklist);
const floodRate = Number(flags['flood-rate']);
const legitRate = Number(flags['legit-rate']);
const legitConnections = Number(flags['legit-connections']);
const floodRounds = Number(flags['flood-rounds']);
/** Seconds of each flood round's two halves (wrk takes whole seconds). */
const roundS = Math.max(1, Math.round(durationS / floodRounds));
const scenarios = flags.scenarios.split(',');
const profiledScenarios = flags['cpu-prof-scenarios'].split(',');
const subject = flags.subject;
const cpuProfDir = flags['cpu-prof'] === undefined ? undefined : path.resolve(flags['cpu-prof']);
if (
  ![durationS, connections, abConcurrency, workers, blacklistSize, floodRate, legitRate, legitConnections, floodRounds].every((n) => Number.isInteger(n) && n > 0) ||
  !(warmupS >= 0) ||
  blacklistSize < 2 ||
  floodRate > 100_000 ||
  legitRate >= floodRate ||
  !scenarios.every((s) => allScenarios.includes(s)) ||
  !profiledScenarios.every((s) => allScenarios.includes(s) || profileOnly.includes(s)) ||
  !['edgeplane', 'nginx', 'node-floor'].includes(subject)
) {
  console.error(
    'usage: node bench/proxy/run.ts [--duration 10] [--warmup 2] [--connections 64] [--ab-concurrency 16] [--workers 1] [--blacklist 1000]\n' +
      '                              [--flood-rate 1000] [--legit-rate 200] [--legit-connections 4] [--flood-rounds 5] [--scenarios 1,2,3,4,4r,5]\n' +
      '                              [--subject edgeplane|nginx|node-floor] [--cpu-prof DIR] [--cpu-prof-scenarios 1]\n' +
      '--legit-rate must stay below --flood-rate (the rule the legitimate client must never trip); --flood-rate at most 100000.',
  );
  process.exit(2);
}

requirePrerequisites(missingPrerequisites());

// The proxy (all its threads or processes) on CPU 0; the load tools and the origin on CPU 1, so the
// proxy never competes with them for its core.
const { serverCpus: proxyCpus, clientCpus } = benchCpus();

const progress = (line: string) => process.stderr.write(`${line}\n`);
const { tmp, running, cleanup } = benchRun('edgeplane-proxy-bench-');

interface Scenario {
  id: string;
  title: string;
  run: (server: ProxyServer, seconds: number) => Promise<LoadRun>;
  /** Why the scenario cannot measure a proxy that answered the checks so; undefined: it can. */
  unmeasurable?: (check: CheckResult) => string | undefined;
}

const wrkRun = (url: (s: ProxyServer) => string, headers: string[] = []) => (server: ProxyServer, seconds: number) =>
  wrk({ url: url(server), connections, seconds, headers, cpus: clientCpus, serverPid: server.pid, dir: tmp });

function loadScenarios(resources: BenchResources): Scenario[] {
  const { plain, rules, flood } = resources;
  return [
    { id: '1', title: `HTTP keep-alive (wrk -t1 -c${connections})`, run: wrkRun((s) => `http://${plain.name}:${s.httpPort}/`) },
    { id: '2', title: `HTTPS keep-alive, P-256 (wrk -t1 -c${connections})`, run: wrkRun((s) => `https://${plain.name}:${s.httpsPort}/`) },
    {
      id: '3',
      title: `HTTP, every rule on (wrk -t1 -c${connections})`,
      run: wrkRun((s) => `http://${rules.name}:${s.httpPort}/`),
    },
    {
      id: '4',
      title: `new TLS connection per request, full handshake (ab -c${abConcurrency})`,
      run: (server, seconds) => ab({ url: `https://${plain.name}:${server.httpsPort}/`, concurrency: abConcurrency, seconds, cpus: clientCpus, serverPid: server.pid, dir: tmp }),
      unmeasurable: (check) => (check.closesHttp10 ? undefined : 'it keeps an HTTP/1.0 connection open after the answer, so ab waits for each until its timeout'),
    },
    {
      id: '4r',
      title: `new TLS connection per request, session resumed (wrk -c${connections} Connection: close)`,
      run: wrkRun((s) => `https://${plain.name}:${s.httpsPort}/`, ['Connection: close']),
      unmeasurable: (check) => (check.closesOnRequest ? undefined : 'it keeps the connection open after Connection: close, so wrk would measure keep-alive'),
    },
    { id: '5f', title: `the flood alone (wrk -t1 -c${connections}), for --cpu-prof`, run: wrkRun((s) => `http://${flood.name}:${s.httpPort}/`) },
  ];
}

interface FloodFigures {
  /** The legitimate client alone, then during the flood. */
  alone: PacedResult;
  flooded: PacedResult;
  flood: LoadRun;
}

/**
 * `floodRounds` rounds, each the legitimate client alone then during the flood, for a share of
 * `durationS` each: bursts of other load on the shared machine then fall on both conditions alike
 * rather than on whichever ran at the time.
 */
async function floodScenario(server: ProxyServer, resources: BenchResources): Promise<FloodFigures> {
  const { flood } = resources;
  const seconds = roundS;
  const legit = () => pacedClientProcess({ port: server.httpPort, host: flood.name, localAddress: '127.0.0.2', connections: legitConnections, rate: legitRate, seconds });
  const alone: PacedResult[] = [];
  const flooded: PacedResult[] = [];
  const floodRuns: LoadRun[] = [];
  for (let round = 0; round < floodRounds; round++) {
    alone.push(await legit());
    const [during, floodRun] = await Promise.all([legit(), wrk({ url: `http://${flood.name}:${server.httpPort}/`, connections, seconds, cpus: clientCpus, serverPid: server.pid, dir: tmp })]);
    flooded.push(during);
    floodRuns.push(floodRun);
  }
  return { alone: mergePaced(alone), flooded: mergePaced(flooded), flood: mergeRuns(floodRuns) };
}

interface ServerFigures {
  server: ProxyServer;
  check: CheckResult;
  /** A run, or why there is none. */
  runs: Map<string, LoadRun | string>;
  /** The flood scenario's figures, or why there are none. */
  flood: FloodFigures | string | undefined;
  problemsBefore: Map<string, number>;
}

const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');

/** A figure of a run, NaN when there is no run (the tables print –). */
const of = (run: LoadRun | string | undefined, value: (r: LoadRun) => number): number => (typeof run === 'object' ? value(run) : NaN);

function printLoadTable(scenario: Scenario, figures: ServerFigures[]): void {
  const [ours, ref] = figures.map((f) => f.runs.get(scenario.id)) as [LoadRun | string, LoadRun | string];
  const line = (label: string, value: (r: LoadRun) => number, format: (v: number) => string, ratio = true) =>
    [label, format(of(ours, value)), format(of(ref, value)), ratio ? fmt.ratio(of(ours, value), of(ref, value)) : ''];
  printTable(
    `${scenario.id}. ${scenario.title}, ${durationS} s`,
    ['', figures[0]!.server.name, figures[1]!.server.name, 'ratio'],
    [
      line('requests/s', requestsPerSecond, fmt.int),
      line('p50 latency ms', (r) => r.p50Ms, fmt.fixed(2)),
      line('p99 latency ms', (r) => r.p99Ms, fmt.fixed(2)),
      line('max latency ms', (r) => r.maxMs, fmt.fixed(1)),
      line('proxy CPU µs per request', cpuMicrosPerRequest, fmt.num),
      line('  of which in the kernel %', (r) => kernelShare(r) * 100, fmt.fixed(0), false),
      line('proxy CPU (cores busy)', (r) => (r.proxyCpu.userS + r.proxyCpu.systemS) / r.durationS, fmt.fixed(2), false),
      line('responses not 2xx', (r) => r.refused, fmt.int, false),
      line('requests failed', (r) => r.failures, fmt.int, false),
    ],
  );
  for (const [i, run] of [ours, ref].entries()) {
    if (typeof run === 'string') console.log(`  ${figures[i]!.server.name}: ${run}`);
  }
  const measured = [ours, ref].find((r) => typeof r === 'object');
  if (measured !== undefined) console.log(`  ${measured.command}`);
}

function printFloodTable(figures: ServerFigures[], resources: BenchResources): void {
  const failed = figures.flatMap((f) => (typeof f.flood === 'object' ? [] : [`${f.server.name} ${f.flood ?? 'not run'}`]));
  if (failed.length > 0) {
    console.log(`\n5. Flood: ${failed.join('; ')}`);
    return;
  }
  const [ours, ref] = figures.map((f) => f.flood) as [FloodFigures, FloodFigures];
  const line = (label: string, value: (f: FloodFigures) => number, format: (v: number) => string, ratio = true) =>
    [label, format(value(ours)), format(value(ref)), ratio ? fmt.ratio(value(ours), value(ref)) : ''];
  const refused = (p: PacedResult) => [...p.refused.values()].reduce((a, b) => a + b, 0);
  printTable(
    `5. Flood: wrk -t1 -c${connections} from 127.0.0.1 against ${resources.flood.name} (rate rule ${floodRate}/s per address), ` +
      `while a legitimate client (Node, ${clientPriority()}) sends ${legitRate}/s from 127.0.0.2 on ${legitConnections} keep-alive connections; ` +
      `${floodRounds} rounds of ${roundS} s alone then ${roundS} s during the flood (legitimate percentiles over all rounds' requests; the flood's latencies from its worst round)`,
    ['', figures[0]!.server.name, figures[1]!.server.name, 'ratio'],
    [
      line('legitimate p50 ms, alone', (f) => f.alone.p50Ms, fmt.fixed(2)),
      line('legitimate p99 ms, alone', (f) => f.alone.p99Ms, fmt.fixed(2)),
      line('legitimate p50 ms, flooded', (f) => f.flooded.p50Ms, fmt.fixed(2)),
      line('legitimate p99 ms, flooded', (f) => f.flooded.p99Ms, fmt.fixed(2)),
      line('legitimate max ms, flooded', (f) => f.flooded.maxMs, fmt.fixed(1)),
      line('legitimate p99 flooded ÷ alone', (f) => f.flooded.p99Ms / f.alone.p99Ms, fmt.fixed(2), false),
      line('legitimate refused or failed', (f) => refused(f.alone) + refused(f.flooded) + f.alone.failures + f.flooded.failures, fmt.int, false),
      line('flood responses/s', (f) => requestsPerSecond(f.flood), fmt.int),
      line('  of which refused (429) %', (f) => (f.flood.refused / f.flood.requests) * 100, fmt.fixed(1), false),
      line('flood requests failed', (f) => f.flood.failures, fmt.int, false),
      line('proxy CPU µs per flood request', (f) => cpuMicrosPerRequest(f.flood), fmt.num),
      line('proxy CPU (cores busy)', (f) => (f.flood.proxyCpu.userS + f.flood.proxyCpu.systemS) / f.flood.durationS, fmt.fixed(2), false),
    ],
  );
  for (const [i, f] of [ours, ref].entries()) {
    for (const [status, n] of [...f.alone.refused, ...f.flooded.refused]) console.log(`  ${figures[i]!.server.name}: legitimate client answered ${status} ×${n}`);
  }
}

/** Runs `scenario` against a fresh subject process started with `start(nodeArgs)` under --cpu-prof, and prints where its time went. */
async function profileRun(start: (nodeArgs: string[]) => Promise<ProxyServer>, scenario: Scenario): Promise<void> {
  const dir = path.join(cpuProfDir!, `scenario-${scenario.id}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const server = await start(cpuProfArgs(dir));
  running.add(server);
  let run: LoadRun;
  let window: Window;
  try {
    progress(`profile: scenario ${scenario.id} against ${server.name} with --cpu-prof (${warmupS} s warm-up, ${durationS} s profiled)`);
    if (warmupS > 0) await scenario.run(server, warmupS);
    const fromUs = Number(process.hrtime.bigint() / 1000n);
    run = await scenario.run(server, durationS);
    window = { fromUs, toUs: Number(process.hrtime.bigint() / 1000n) };
  } finally {
    running.delete(server);
    await server.stop();
  }
  const summary = summariseProfiles(dir, path.resolve(import.meta.dirname, '../..'), window);
  const requests = run.requests;
  const rows = (list: { label: string; ms: number; share: number }[]) => list.map((e) => [e.label, fmt.num((e.ms * 1000) / requests), `${(e.share * 100).toFixed(1)}%`]);
  printTable(
    `Where ${server.name}'s CPU goes in scenario ${scenario.id}: ${fmt.int(requests)} requests in ${durationS} s, ${fmt.int(summary.totalMs)} ms sampled while the thread was not idle ` +
      `(${fmt.num((summary.totalMs * 1000) / requests)} µs per request: wall time, so it includes waits for a busy core; /proc's CPU time for this run: ${fmt.num(cpuMicrosPerRequest(run))} µs per request, profiler included); ` +
      `self time by function (${summary.files.length} profile(s) in ${dir})`,
    ['function', 'µs/request', 'share'],
    rows(summary.byFunction),
  );
  printTable(`… and by source file`, ['file', 'µs/request', 'share'], rows(summary.byFile));
}

try {
  console.log(`edgeplane protection proxy benchmark — ${new Date().toISOString()}`);
  console.log(`machine: ${os.availableParallelism()} cores (${os.cpus()[0]?.model.trim() ?? '?'}), load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; Node ${process.version}`);
  if (subject === 'edgeplane') console.log(`edgeplane ${edgeplaneVersion()}`);

  const taken = new Set<number>();
  const originPorts = { primary: await freePort(taken), secondary: await freePort(taken), backup: await freePort(taken) };
  const resources = benchResources(originPorts, floodRate, blacklistSize);
  const cert = makeCertificate(tmp, benchNames);
  useHosts(tmp);

  progress('setup: origin, certificate, resources');
  const origin = await startOrigin(originPorts, clientCpus);
  running.add(origin);

  const dataDir = path.join(tmp, 'edgeplane-data');
  if (subject === 'edgeplane') {
    fs.mkdirSync(dataDir);
    await createResources(dataDir, allResources(resources).map((r) => resourceBody(r, cert)));
  }
  /** Starts the subject (edgeplane, or what stands in for it) on fresh ports, with extra Node options (Node subjects only). */
  const startOurs = async (nodeArgs: string[]): Promise<ProxyServer> => {
    const [httpPort, httpsPort] = [await freePort(taken), await freePort(taken)];
    if (subject === 'edgeplane') return startEdgeplaneProxy({ dataDir, httpPort, httpsPort, workers, cpus: proxyCpus, readyHost: resources.plain.name, nodeArgs });
    if (subject === 'node-floor') return startNodeFloor({ httpPort, httpsPort, originPort: originPorts.primary, certFile: cert.certFile, keyFile: cert.keyFile, cpus: proxyCpus, nodeArgs });
    return startNginxProxy({ resources, cert, httpPort, httpsPort, workers, cpus: proxyCpus, name: 'nginx (stand-in)' });
  };
  const ours = await startOurs([]);
  running.add(ours);
  const reference = await startNginxProxy({ resources, cert, httpPort: await freePort(taken), httpsPort: await freePort(taken), workers, cpus: proxyCpus, name: 'nginx' });
  running.add(reference);

  const figures: ServerFigures[] = [];
  for (const server of [ours, reference]) {
    progress(`check: ${server.name}`);
    figures.push({ server, check: await checkProxy(server, resources, cert), runs: new Map(), flood: undefined, problemsBefore: new Map(server.log.problems) });
  }

  // Each scenario runs on both proxies back to back (both stay up, the idle one costs nothing), so
  // drift in the machine's other load affects both alike.
  const load = loadScenarios(resources).filter((s) => scenarios.includes(s.id));
  for (const scenario of load) {
    for (const f of figures) {
      const why = scenario.unmeasurable?.(f.check);
      if (why !== undefined) {
        f.runs.set(scenario.id, `not measured: ${why}`);
        continue;
      }
      progress(`scenario ${scenario.id}: ${f.server.name} (${warmupS} s warm-up, ${durationS} s measured)`);
      try {
        if (warmupS > 0) await scenario.run(f.server, warmupS);
        f.runs.set(scenario.id, await scenario.run(f.server, durationS));
      } catch (e) {
        f.runs.set(scenario.id, `failed: ${(e instanceof Error ? e.message : String(e)).split('\n').filter((l) => l.trim() !== '').slice(0, 3).join(' | ')}`);
      }
      await sleep(500);
    }
  }
  if (scenarios.includes('5')) {
    for (const f of figures) {
      progress(`scenario 5: ${f.server.name} (${warmupS} s flood warm-up, ${floodRounds} rounds of ${roundS} s legitimate client alone, then with the flood)`);
      try {
        if (warmupS > 0) await wrk({ url: `http://${resources.flood.name}:${f.server.httpPort}/`, connections, seconds: warmupS, cpus: clientCpus, serverPid: f.server.pid, dir: tmp });
        await sleep(500);
        f.flood = await floodScenario(f.server, resources);
      } catch (e) {
        f.flood = `failed: ${(e instanceof Error ? e.message : String(e)).split('\n').filter((l) => l.trim() !== '').slice(0, 3).join(' | ')}`;
      }
      await sleep(500);
    }
  }

  // ---- report ----
  console.log(`\nproxies pinned to CPU ${proxyCpus ?? 'any'}; wrk, ab and the origin to CPU ${clientCpus ?? 'any'}; ratios are ${figures[0]!.server.name} ÷ ${figures[1]!.server.name}`);
  for (const f of figures) console.log(`  ${f.server.description}`);
  console.log(`  ${origin.description}`);
  console.log(
    `resources: ${resources.plain.name} (one origin; scenarios 1, 2, 4), ${resources.rules.name} (whitelist of ${resources.rules.whitelist.length} not holding the client, ` +
      `blacklist of ${fmt.int(resources.rules.blacklist.length)} not holding it, geo mode 1 refusing ${resources.rules.countries.join(',')}, rate rule ${fmt.int(resources.rules.rule!.value)}/s per address, ` +
      `origins weighted 3:1 and a backup; scenario 3), ${resources.flood.name} (rate rule ${fmt.int(floodRate)}/s per address; scenario 5); one P-256 certificate for all three, HTTP/1.1 to the origin`,
  );
  console.log('proxy CPU = utime+stime from /proc/<pid>/stat of the proxy (all threads and child processes) over the measured run, ÷ responses');
  for (const f of figures) {
    const problems = f.check.problems.length === 0 ? 'ok' : `${f.check.problems.length} WRONG: ${f.check.problems.join('; ')}`;
    console.log(`checks before measuring, ${f.server.name}: ${problems} (40 requests to ${resources.rules.name}: ${f.check.spread})`);
  }

  for (const scenario of load) printLoadTable(scenario, figures);
  if (scenarios.includes('5')) printFloodTable(figures, resources);

  const summaryRow = (label: string, a: LoadRun | string | undefined, b: LoadRun | string | undefined) => {
    const cells = (value: (r: LoadRun) => number, format: (v: number) => string) => [format(of(a, value)), format(of(b, value)), fmt.ratio(of(a, value), of(b, value))];
    return [label, ...cells(requestsPerSecond, fmt.int), ...cells((r) => r.p99Ms, fmt.fixed(2)), ...cells(cpuMicrosPerRequest, fmt.num)];
  };
  const summaryRows = load.map((scenario) => {
    const [a, b] = figures.map((f) => f.runs.get(scenario.id));
    return summaryRow(`${scenario.id}. ${scenario.title.replace(/ \(.*\)$/, '')}`, a, b);
  });
  const floodRun = (f: ServerFigures) => (typeof f.flood === 'object' ? f.flood.flood : f.flood);
  if (scenarios.includes('5')) summaryRows.push(summaryRow('5. flood (wrk side)', floodRun(figures[0]!), floodRun(figures[1]!)));
  const [n0, n1] = figures.map((f) => f.server.name) as [string, string];
  printTable('Summary', ['scenario', `req/s ${n0}`, `req/s ${n1}`, 'ratio', `p99 ms ${n0}`, `p99 ms ${n1}`, 'ratio', `CPU µs/req ${n0}`, `CPU µs/req ${n1}`, 'ratio'], summaryRows);

  const targets: string[] = [];
  for (const scenario of load) {
    const [a, b] = figures.map((f) => of(f.runs.get(scenario.id), cpuMicrosPerRequest)) as [number, number];
    const outcome = Number.isNaN(a / b) ? 'not measured' : verdict(a / b <= 2);
    targets.push(`${scenario.id}. CPU per request ≤ 2× nginx's: ${fmt.num(a)} vs ${fmt.num(b)} µs = ${fmt.ratio(a, b)} → ${outcome}`);
  }
  if (scenarios.includes('5')) {
    const [a, b] = figures.map((f) => of(floodRun(f), cpuMicrosPerRequest)) as [number, number];
    targets.push(`5. CPU per flood request ≤ 2× nginx's: ${fmt.num(a)} vs ${fmt.num(b)} µs = ${fmt.ratio(a, b)} → ${Number.isNaN(a / b) ? 'not measured' : verdict(a / b <= 2)}`);
    for (const f of figures) {
      if (typeof f.flood !== 'object') continue;
      const { alone, flooded } = f.flood;
      const legitimateRefused = [...alone.refused.values(), ...flooded.refused.values()].reduce((x, y) => x + y, 0) + alone.failures + flooded.failures;
      targets.push(
        `5. legitimate p99 during the flood ≤ 2× without (${f.server.name}): ${fmt.fixed(2)(flooded.p99Ms)} vs ${fmt.fixed(2)(alone.p99Ms)} ms = ${fmt.ratio(flooded.p99Ms, alone.p99Ms)}` +
          `${legitimateRefused > 0 ? `, ${legitimateRefused} legitimate requests refused or failed` : ''} → ${verdict(flooded.p99Ms <= 2 * alone.p99Ms && legitimateRefused === 0)}`,
      );
    }
  }
  console.log(`\nTargets (${n0})\n${targets.map((t) => `  ${t}`).join('\n')}`);

  const logged = figures.flatMap((f) =>
    [...f.server.log.problems].filter(([line, n]) => n > (f.problemsBefore.get(line) ?? 0)).map(([line, n]) => `  ${f.server.name} logged ×${n - (f.problemsBefore.get(line) ?? 0)}: ${line}`),
  );
  if (logged.length > 0) console.log(`\nLog lines at warn or above during the run\n${logged.join('\n')}`);
  for (const f of figures) if (f.server.hasExited()) console.log(`${f.server.name} EXITED during the run`);

  if (cpuProfDir !== undefined && subject !== 'nginx') {
    await ours.stop();
    running.delete(ours);
    for (const scenario of loadScenarios(resources).filter((s) => profiledScenarios.includes(s.id))) await profileRun(startOurs, scenario);
  }
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  await cleanup();
}
