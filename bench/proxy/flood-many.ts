// The L7 flood from many sources (issue 13, item 3): hundreds of loopback addresses each sending a
// rate a per-address limit lets through, plus a few heavy ones, hammer one resource while a few
// browser-like clients (which pass the bot challenge) load pages from it. edgeplane with automatic
// mitigation at its defaults, then nginx with limit_req + limit_conn per address, each in front of
// the same origin: the users' success rate and latency calm and flooded, what the flood got, the
// origin's request rate, and the proxy's memory, against issue 13's targets.
//
//   node bench/proxy/flood-many.ts [--calm 10] [--flood 20] [--sources 1000] [--source-rate 10] [--cpu-prof DIR]
//
// Run by hand, never from `npm test`. See bench/proxy/README.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { percentiles } from '../api/load.ts';
import { cpuProfArgs, sleep } from '../api/server.ts';
import { edgeplaneVersion } from '../dns/edgeplane.ts';
import { fmt, printTable } from '../dns/table.ts';
import { benchCpus, findProgram, requirePrerequisites } from '../dns/server.ts';
import { browsersProcess, browserAddress, type PageLoad } from './browser-clients.ts';
import { makeCertificate } from './certificate.ts';
import { clientPriority } from './client-process.ts';
import { createResources, resourceBody, startEdgeplaneProxy } from './edgeplane.ts';
import { monitor, sample, type MonitorSample } from './flood-monitor.ts';
import { floodProcess, heavyAddress, sourceAddress, type FloodResult } from './flood-sources.ts';
import { startNginxProxy, startOrigin } from './nginx.ts';
import { benchNames, benchResources } from './resources.ts';
import { freePort } from '../../test/support/free-port.ts';
import { benchRun, nginxModule, type ProxyServer } from './server.ts';

const { values: flags } = parseArgs({
  options: {
    calm: { type: 'string', default: '10' },
    flood: { type: 'string', default: '20' },
    sources: { type: 'string', default: '1000' },
    'source-rate': { type: 'string', default: '10' },
    heavy: { type: 'string', default: '4' },
    'heavy-connections': { type: 'string', default: '16' },
    browsers: { type: 'string', default: '10' },
    'browser-rate': { type: 'string', default: '50' },
    'rate-limit': { type: 'string', default: '20' },
    'connection-limit': { type: 'string', default: '8' },
    subjects: { type: 'string', default: 'edgeplane,nginx' },
    'cpu-prof': { type: 'string' },
    timeline: { type: 'boolean', default: false },
  },
});
const calmS = Number(flags.calm);
const floodS = Number(flags.flood);
const sources = Number(flags.sources);
const sourceRate = Number(flags['source-rate']);
const heavy = Number(flags.heavy);
const heavyConnections = Number(flags['heavy-connections']);
const browserCount = Number(flags.browsers);
const browserRate = Number(flags['browser-rate']);
const rateLimit = Number(flags['rate-limit']);
const connectionLimit = Number(flags['connection-limit']);
const subjects = flags.subjects.split(',');
if (
  ![calmS, floodS, sources, sourceRate, browserCount, browserRate, rateLimit, connectionLimit, heavyConnections].every((n) => Number.isInteger(n) && n > 0) ||
  !(Number.isInteger(heavy) && heavy >= 0 && heavy <= 250) ||
  sources > 250 * 256 ||
  browserCount > 250 ||
  // edgeplane learns a resource's usual rate over its first five seconds of traffic.
  calmS < 6 ||
  // The origin's rate is judged from the flood's 5th second on (detectionS below).
  floodS < 10 ||
  // A user must stay under the limits the flood's heavy sources meet (a page load is up to three requests).
  (browserRate / browserCount) * 3 > rateLimit ||
  !subjects.every((s) => ['edgeplane', 'nginx'].includes(s))
) {
  console.error(
    'usage: node bench/proxy/flood-many.ts [--calm 10 (≥ 6)] [--flood 20 (≥ 10)] [--sources 1000] [--source-rate 10] [--heavy 4] [--heavy-connections 16]\n' +
      '                                    [--browsers 10] [--browser-rate 50] [--rate-limit 20] [--connection-limit 8] [--subjects edgeplane,nginx]\n' +
      'each browser (--browser-rate ÷ --browsers page loads/s, up to 3 requests each) must stay under --rate-limit.',
  );
  process.exit(2);
}

requirePrerequisites(
  ['nginx', 'taskset'].every((p) => findProgram(p) !== undefined) && nginxModule() !== undefined
    ? undefined
    : 'The flood bench needs nginx with its GeoIP2 module (the reference proxy loads it) and taskset:\n  apt-get install -y nginx libnginx-mod-http-geoip2 util-linux',
);

// Targets (issue 13) and the bounds this bench sets.
const successTarget = 0.99;
const p99RatioTarget = 3;
/** The origin's rate is judged from this second of the flood on: detection needs a window (edgeplane's is 5 s). */
const detectionS = 5;
/** How much the proxy's RSS may grow over the run. */
const rssGrowthBoundKiB = 100 * 1024;

// The proxies on CPU 0; the origin and the flood on CPU 1; the browsers at a raised priority on either.
const cores = os.availableParallelism();
const { serverCpus: proxyCpus, clientCpus: loadCpus } = benchCpus();

const progress = (line: string) => process.stderr.write(`${line}\n`);
const { tmp, running, cleanup } = benchRun('edgeplane-flood-bench-');

interface SubjectFigures {
  server: ProxyServer;
  calm: PageLoad[];
  flooded: PageLoad[];
  /** Of `flooded`, the page loads from `detectionS` into the flood on. */
  floodedSteady: PageLoad[];
  floodStart: number;
  samples: MonitorSample[];
  flood: FloodResult;
  /** Origin requests a second, per monitor interval, in the calm and from `detectionS` into the flood; the flood's whole. */
  originCalm: number;
  originFlood: number;
  originSteady: number;
  originPeak: number;
  /** The proxy's cores busy, calm and from `detectionS` into the flood. */
  cpuCalm: number;
  cpuSteady: number;
  rssBeforeKiB: number;
  rssPeakKiB: number;
  rssEndKiB: number;
}

/** A counter's rate a second between consecutive samples taken within [from, to). */
function ratesOf(samples: MonitorSample[], from: number, to: number, counter: (s: MonitorSample) => number): number[] {
  const rates: number[] = [];
  for (let i = 1; i < samples.length; i++) {
    const [a, b] = [samples[i - 1]!, samples[i]!];
    if (a.atMs >= from && b.atMs <= to) rates.push(((counter(b) - counter(a)) * 1000) / (b.atMs - a.atMs));
  }
  return rates;
}
const originRates = (samples: MonitorSample[], from: number, to: number) => ratesOf(samples, from, to, (s) => s.originRequests);
const cpuBusy = (samples: MonitorSample[], from: number, to: number) => ratesOf(samples, from, to, (s) => s.proxyCpuS);

const mean = (values: number[]) => (values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length);

/** The browsers for the calm and the flood, the flood after the calm, the origin and memory watched throughout. */
async function measure(server: ProxyServer, statusPort: number, host: string): Promise<SubjectFigures> {
  const rssBeforeKiB = (await sample(statusPort, server.pid)).proxyRssKiB;
  const watch = monitor(statusPort, server.pid);
  const browsing = browsersProcess({ port: server.httpPort, host, clients: browserCount, rate: browserRate, seconds: calmS + floodS });
  await sleep(calmS * 1000);
  const floodStart = Date.now();
  const flood = await floodProcess({ port: server.httpPort, host, sources, rate: sourceRate, heavy, heavyConnections, seconds: floodS }, loadCpus);
  const floodEnd = Date.now();
  const loads = await browsing;
  const samples = await watch.stop();
  const during = samples.filter((s) => s.atMs >= floodStart && s.atMs <= floodEnd);
  const floodRates = originRates(samples, floodStart, floodEnd);
  return {
    server,
    calm: loads.filter((l) => l.atMs < floodStart),
    flooded: loads.filter((l) => l.atMs >= floodStart && l.atMs < floodEnd),
    floodedSteady: loads.filter((l) => l.atMs >= floodStart + detectionS * 1000 && l.atMs < floodEnd),
    floodStart,
    samples,
    flood,
    originCalm: mean(originRates(samples, 0, floodStart)),
    originFlood: mean(floodRates),
    originSteady: mean(originRates(samples, floodStart + detectionS * 1000, floodEnd)),
    originPeak: Math.max(...floodRates),
    cpuCalm: mean(cpuBusy(samples, 0, floodStart)),
    cpuSteady: mean(cpuBusy(samples, floodStart + detectionS * 1000, floodEnd)),
    rssBeforeKiB,
    rssPeakKiB: Math.max(rssBeforeKiB, ...during.map((s) => s.proxyRssKiB)),
    rssEndKiB: samples.at(-1)!.proxyRssKiB,
  };
}

const ok = (l: PageLoad) => l.status === 200;
const successRate = (loads: PageLoad[]) => loads.filter(ok).length / loads.length;
/** Page loads' times, the proof of work's own time taken out (a browser's CPU, not the proxy's: browser-clients.ts). */
const latency = (loads: PageLoad[]) => percentiles(Float64Array.from(loads.filter(ok).map((l) => l.ms - l.solveMs)));
const withSolve = (loads: PageLoad[]) => percentiles(Float64Array.from(loads.filter(ok).map((l) => l.ms)));
/** --timeline: per second from 2 s before the flood, the users' page loads and what the monitor saw. */
function printTimeline(f: SubjectFigures): void {
  const rows: string[][] = [];
  for (let second = -2; second < floodS; second++) {
    const [from, to] = [f.floodStart + second * 1000, f.floodStart + (second + 1) * 1000];
    const loads = [...f.calm, ...f.flooded].filter((l) => l.atMs >= from && l.atMs < to);
    const times = latency(loads);
    // A sample whose /proc reads raced the process tree reads 0: not a figure.
    const rss = f.samples.filter((s) => s.atMs >= from && s.atMs < to && s.proxyRssKiB > 0).map((s) => s.proxyRssKiB);
    rows.push([
      String(second),
      fmt.int(loads.length),
      fmt.int(loads.filter((l) => !ok(l)).length),
      fmt.fixed(2)(times.p50),
      fmt.fixed(2)(times.p99),
      fmt.fixed(2)(times.max),
      fmt.int(mean(originRates(f.samples, from - 500, to + 500))),
      fmt.fixed(2)(mean(cpuBusy(f.samples, from - 500, to + 500))),
      rss.length === 0 ? '–' : fmt.mib(Math.max(...rss)),
    ]);
  }
  printTable(`${f.server.name}: per second of the flood`, ['s', 'loads', 'failed', 'p50 ms', 'p99 ms', 'max ms', 'origin/s', 'cpu', 'rss MiB'], rows);
}

const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS');

try {
  console.log(`edgeplane flood bench, many sources — ${new Date().toISOString()}`);
  console.log(`machine: ${cores} cores (${os.cpus()[0]?.model.trim() ?? '?'}), load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; Node ${process.version}; edgeplane ${edgeplaneVersion()}`);

  const taken = new Set<number>();
  const originPorts = { primary: await freePort(taken), secondary: await freePort(taken), backup: await freePort(taken) };
  const statusPort = await freePort(taken);
  const defaults = benchResources(originPorts, rateLimit, 2);
  const resources = { ...defaults, flood: { ...defaults.flood, connectionsPerClient: connectionLimit } };
  const cert = makeCertificate(tmp, benchNames);
  const host = resources.flood.name;

  progress('setup: origin, resources');
  const origin = await startOrigin(originPorts, loadCpus, statusPort);
  running.add(origin);

  const figures: SubjectFigures[] = [];
  for (const subject of subjects) {
    const [httpPort, httpsPort] = [await freePort(taken), await freePort(taken)];
    let server: ProxyServer;
    if (subject === 'edgeplane') {
      const dataDir = path.join(tmp, 'edgeplane-data');
      fs.mkdirSync(dataDir);
      await createResources(dataDir, [resourceBody(resources.flood, cert)]);
      server = await startEdgeplaneProxy({
        dataDir, httpPort, httpsPort, workers: 1, cpus: proxyCpus, readyHost: host, mitigation: true,
        nodeArgs: cpuProfArgs(flags['cpu-prof']),
        // nginx's limit_conn, as the operator's setting (edgeplane has no per-resource one).
        env: { EDGEPLANE_PROXY_MAX_CONNECTIONS_PER_CLIENT: String(connectionLimit) },
      });
    } else {
      server = await startNginxProxy({ resources, cert, httpPort, httpsPort, workers: 1, cpus: proxyCpus, name: 'nginx' });
    }
    running.add(server);
    // Let the readiness probes' requests leave the rate limiter's and the attack watch's windows.
    await sleep(1500);
    progress(`${server.name}: ${calmS} s calm, then ${floodS} s flooded`);
    figures.push(await measure(server, statusPort, host));
    running.delete(server);
    await server.stop();
    await sleep(1000);
  }

  // ---- report ----
  const offered = sources * sourceRate;
  console.log(`\nproxies pinned to CPU ${proxyCpus ?? 'any'}, one thread / worker; the origin and the flood to CPU ${loadCpus ?? 'any'}; the browsers at ${clientPriority()}`);
  for (const f of figures) console.log(`  ${f.server.description}`);
  console.log(`  ${origin.description}; its stub_status counts what reached it`);
  console.log(
    `resource ${host}: one origin, a rate rule of ${rateLimit}/s per address (nginx: limit_req burst=${rateLimit} nodelay), at most ${connectionLimit} connections per address ` +
      `(nginx: limit_conn; edgeplane: EDGEPLANE_PROXY_MAX_CONNECTIONS_PER_CLIENT); edgeplane's automatic mitigation at its defaults (EDGEPLANE_PROXY_ATTACK_*)`,
  );
  console.log(
    `flood: ${fmt.int(sources)} addresses (${sourceAddress(0)} … ${sourceAddress(sources - 1)}) at ${sourceRate}/s each, one keep-alive connection each (${fmt.int(offered)}/s offered), ` +
      `plus ${heavy} heavy addresses (${heavy > 0 ? `${heavyAddress(0)} …` : 'none'}) on ${heavyConnections} connections each, unpaced; GET / without cookies or JavaScript`,
  );
  console.log(
    `users: ${browserCount} browser-like clients (${browserAddress(0)} … ${browserAddress(browserCount - 1)}), ${browserRate} page loads/s in all, each timed from send to the end of its answer, ` +
      `a challenge met solved (in a worker thread) and its requests counted in, its solving time not; ${calmS} s calm, then ${floodS} s flooded`,
  );

  const cells = (value: (f: SubjectFigures) => string) => figures.map(value);
  const statuses = (f: SubjectFigures) =>
    f.flood.answered
      .sort((a, b) => a[0] - b[0])
      .map(([status, n]) => `${status}: ${fmt.int(n / f.flood.durationS)}`)
      .join(', ');
  const rows: string[][] = [
    ['users: page loads calm / flooded', ...cells((f) => `${f.calm.length} / ${f.flooded.length}`)],
    ['users: success calm %', ...cells((f) => fmt.fixed(2)(successRate(f.calm) * 100))],
    ['users: success flooded %', ...cells((f) => fmt.fixed(2)(successRate(f.flooded) * 100))],
    ['users: challenges solved', ...cells((f) => fmt.int([...f.calm, ...f.flooded].filter((l) => l.challenged).length))],
    ['users: solving ms p50 / max', ...cells((f) => {
      const solved = percentiles(Float64Array.from([...f.calm, ...f.flooded].filter((l) => l.challenged).map((l) => l.solveMs)));
      return `${fmt.int(solved.p50)} / ${fmt.int(solved.max)}`;
    })],
    ['users: p50 ms calm / flooded', ...cells((f) => `${fmt.fixed(2)(latency(f.calm).p50)} / ${fmt.fixed(2)(latency(f.flooded).p50)}`)],
    ['users: p99 ms calm / flooded', ...cells((f) => `${fmt.fixed(2)(latency(f.calm).p99)} / ${fmt.fixed(2)(latency(f.flooded).p99)}`)],
    ['users: p99 flooded ÷ calm', ...cells((f) => fmt.ratio(latency(f.flooded).p99, latency(f.calm).p99))],
    [`users: p50 / p99 ms from ${detectionS} s into the flood`, ...cells((f) => `${fmt.fixed(2)(latency(f.floodedSteady).p50)} / ${fmt.fixed(2)(latency(f.floodedSteady).p99)}`)],
    ['users: p99 ms flooded, solving in', ...cells((f) => fmt.fixed(2)(withSolve(f.flooded).p99))],
    ['flood: sent/s', ...cells((f) => fmt.int(f.flood.sent / f.flood.durationS))],
    ['flood: answered/s by status', ...cells(statuses)],
    ['flood: failed, connections opened', ...cells((f) => `${fmt.int(f.flood.failures)}, ${fmt.int(f.flood.connects)}`)],
    ['origin req/s calm', ...cells((f) => fmt.int(f.originCalm))],
    ['origin req/s flooded: mean / peak', ...cells((f) => `${fmt.int(f.originFlood)} / ${fmt.int(f.originPeak)}`)],
    [`origin req/s from ${detectionS} s into the flood`, ...cells((f) => fmt.int(f.originSteady))],
    [`proxy CPU cores busy calm / from ${detectionS} s into the flood`, ...cells((f) => `${fmt.fixed(2)(f.cpuCalm)} / ${fmt.fixed(2)(f.cpuSteady)}`)],
    ['proxy RSS MiB before / peak / end', ...cells((f) => `${fmt.mib(f.rssBeforeKiB)} / ${fmt.mib(f.rssPeakKiB)} / ${fmt.mib(f.rssEndKiB)}`)],
  ];
  printTable('Flood from many sources', ['', ...figures.map((f) => f.server.name)], rows);

  const targets: string[] = [];
  for (const f of figures) {
    const name = f.server.name;
    const success = successRate(f.flooded);
    const [calm, flooded] = [latency(f.calm).p99, latency(f.flooded).p99];
    // The origin's ceiling: what it served calm, twice over, plus the users' own rate.
    const ceiling = f.originCalm * 2 + browserRate;
    const growth = f.rssPeakKiB - f.rssBeforeKiB;
    targets.push(
      `${name}: users' success during the flood ≥ ${successTarget * 100}%: ${fmt.fixed(2)(success * 100)}% → ${verdict(success >= successTarget)}`,
      `${name}: users' p99 flooded ≤ ${p99RatioTarget}× calm: ${fmt.fixed(2)(flooded)} vs ${fmt.fixed(2)(calm)} ms = ${fmt.ratio(flooded, calm)} → ${verdict(flooded <= p99RatioTarget * calm)}`,
      `${name}: origin ≤ ${fmt.int(ceiling)} req/s (calm ${fmt.int(f.originCalm)} × 2 + the users' ${browserRate}) from ${detectionS} s into the flood: ${fmt.int(f.originSteady)} → ${verdict(f.originSteady <= ceiling)}` +
        ` (over the whole flood ${fmt.int(f.originFlood)}, peak second ${fmt.int(f.originPeak)})`,
      `${name}: proxy RSS grows ≤ ${fmt.mib(rssGrowthBoundKiB)} MiB: ${fmt.mib(f.rssBeforeKiB)} → ${fmt.mib(f.rssPeakKiB)} MiB → ${verdict(growth <= rssGrowthBoundKiB)}`,
    );
  }
  console.log(`\nTargets (issue 13, item 3)\n${targets.map((t) => `  ${t}`).join('\n')}`);
  for (const f of figures) {
    const failed = f.flooded.filter((l) => !ok(l));
    if (failed.length > 0) console.log(`  ${f.server.name}: users' failed page loads during the flood by status: ${JSON.stringify(Object.entries(Object.groupBy(failed, (l) => String(l.status))).map(([s, l]) => [s, l?.length]))}`);
  }
  if (flags.timeline) for (const f of figures) printTimeline(f);
  const logged = figures.flatMap((f) => [...f.server.log.problems].map(([line, n]) => `  ${f.server.name} logged ×${n}: ${line}`));
  if (logged.length > 0) console.log(`\nLog lines at warn or above\n${logged.join('\n')}`);
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  await cleanup();
}
