// DNS benchmark: edgeplane against Knot DNS and PowerDNS (bind backend) serving the same zone, with
// dnsperf, side by side in one run.
//
//   node bench/dns/run.ts [--duration 10] [--names 10000] [--load-records 1000000] [--scenarios 1,2,3,4,5,6]
//
// Run by hand, never from `npm test`: it takes several minutes, needs the reference servers and
// dnsperf installed, and its figures are only meaningful as ratios within one run. See bench/README.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuProfArgs, sleep } from '../api/server.ts';
import { checkAnswers, type CheckResult } from './check.ts';
import { dnsperf, type DnsperfResult } from './dnsperf.ts';
import { EdgeplaneApi, edgeplaneVersion, startEdgeplane, supportsDnsWorkers } from './edgeplane.ts';
import { changedName, measureEdgeplaneIxfr, measureKnotIxfr, type TransferFigures } from './ixfr.ts';
import { startKnot, type ZoneSource } from './knot.ts';
import { startPowerDns } from './powerdns.ts';
import { binaryQueryFile, defaultMix, generateQueries, subnets, type Query } from './queries.ts';
import { benchCpus, missingPrerequisites, requirePrerequisites, type DnsServer } from './server.ts';
import { fmt, printTable, row } from './table.ts';
import { benchZone, countRecords, geodnsRrset, hasPickers, kindOf, zoneLines } from './zone.ts';
import { measureEdgeplaneLoad, measureKnotLoad, prepareLoad, settleS, type LoadFigures } from './zone-load.ts';

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: process.env['BENCH_DURATION'] ?? '10' },
    warmup: { type: 'string', default: '2' },
    names: { type: 'string', default: '10000' },
    queries: { type: 'string', default: '100000' },
    ecs: { type: 'string', default: '0.3' },
    clients: { type: 'string', default: '10' },
    outstanding: { type: 'string', default: '200' },
    'load-records': { type: 'string', default: '1000000' },
    'load-timeout': { type: 'string', default: '600' },
    scenarios: { type: 'string', default: '1,2,3,4,5,6' },
    'cpu-prof': { type: 'string' },
  },
});
const durationS = Number(flags.duration);
const warmupS = Number(flags.warmup);
const names = Number(flags.names);
const queryCount = Number(flags.queries);
const ecsShare = Number(flags.ecs);
const clients = Number(flags.clients);
const outstanding = Number(flags.outstanding);
const loadRecords = Number(flags['load-records']);
const loadTimeoutMs = Number(flags['load-timeout']) * 1000;
const scenarios = new Set(flags.scenarios.split(',').map(Number));
const cpuProfDir = flags['cpu-prof'] === undefined ? undefined : path.resolve(flags['cpu-prof']);
if (
  ![durationS, names, queryCount, clients, outstanding, loadRecords, loadTimeoutMs].every((n) => Number.isInteger(n) && n > 0) ||
  !(warmupS >= 0) ||
  !(ecsShare >= 0 && ecsShare <= 1) ||
  ![...scenarios].every((s) => [1, 2, 3, 4, 5, 6].includes(s))
) {
  console.error(
    'usage: node bench/dns/run.ts [--duration 10] [--warmup 2] [--names 10000] [--queries 100000] [--ecs 0.3] [--clients 10] [--outstanding 200]\n' +
      '                             [--load-records 1000000] [--load-timeout 600] [--scenarios 1,2,3,4,5,6] [--cpu-prof DIR]',
  );
  process.exit(2);
}

requirePrerequisites(missingPrerequisites());

// Pinning: with one worker each, the server gets CPU 0 (all its threads) and dnsperf CPU 1, so the
// two never compete for a core; "all workers" pins nothing.
const cores = os.availableParallelism();
const { serverCpus, clientCpus } = benchCpus();
const allWorkers = Math.max(2, cores);
const workersSupported = supportsDnsWorkers();

const progress = (line: string) => process.stderr.write(`${line}\n`);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-dns-bench-'));
const running = new Set<DnsServer>();
const cleanup = async () => {
  await Promise.allSettled([...running].map((s) => s.stop()));
  fs.rmSync(tmp, { recursive: true, force: true });
};
process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));

interface Measured {
  name: string;
  description: string;
  check: CheckResult;
  result: DnsperfResult;
  problems: string[];
}

/** `fullPass`: warm up with one whole pass through the query file (an online signer's steady state). */
async function measure(start: () => Promise<DnsServer>, queryFile: string, sample: Query[], pickers: boolean, dnsperfCpus: string | undefined, fullPass = false): Promise<Measured> {
  const server = await start();
  running.add(server);
  try {
    progress(`  ${server.name}: started (${(server.readyMs / 1000).toFixed(1)} s), checking answers, ${warmupS} s warm-up, ${durationS} s measured`);
    const check = await checkAnswers(server.port, sample, pickers);
    const options = { port: server.port, file: queryFile, clients, outstanding, threads: 1, cpus: dnsperfCpus, serverPid: server.pid };
    if (warmupS > 0) await dnsperf({ ...options, seconds: warmupS });
    if (fullPass) await dnsperf({ ...options, seconds: 300, passes: 1 });
    const problemsBefore = new Map(server.log.problems);
    const result = await dnsperf({ ...options, seconds: durationS });
    const problems = [...server.log.problems].filter(([line, n]) => n > (problemsBefore.get(line) ?? 0)).map(([line, n]) => `${line} ×${n - (problemsBefore.get(line) ?? 0)}`);
    if (server.hasExited()) problems.push('the server exited during the run');
    return { name: server.name, description: server.description, check, result, problems };
  } finally {
    running.delete(server);
    await server.stop();
    await sleep(500);
  }
}

const cpuPerQuery = (m: Measured) => (m.result.serverCpuS * 1e6) / m.result.completed;

function printScenario(title: string, measured: Measured[]): void {
  const [, ...others] = measured;
  const share = (m: Measured, code: string) => ((m.result.rcodes.get(code) ?? 0) / m.result.completed) * 100;
  const rows = [
    row('queries/s', measured.map((m) => m.result.qps), fmt.int),
    row('server CPU µs per answered query', measured.map(cpuPerQuery), fmt.num),
    row('  of which in the kernel %', measured.map((m) => m.result.serverKernelShare * 100), fmt.fixed(0), false),
    row('server CPU (cores busy)', measured.map((m) => m.result.serverCpuS / m.result.runS), fmt.fixed(2)),
    row('queries lost', measured.map((m) => m.result.lost), fmt.int, false),
    row('queries sent', measured.map((m) => m.result.sent), fmt.int, false),
    row('average latency ms', measured.map((m) => m.result.avgLatencyMs), fmt.fixed(3)),
    row('max latency ms', measured.map((m) => m.result.maxLatencyMs), fmt.fixed(1)),
    row('response bytes (average)', measured.map((m) => m.result.responseBytes), fmt.int, false),
    row('NXDOMAIN % of answers', measured.map((m) => share(m, 'NXDOMAIN')), fmt.fixed(1), false),
    ['answers checked before', ...measured.map((m) => (m.check.mismatchCount === 0 ? `${m.check.checked} ok` : `${m.check.mismatchCount}/${m.check.checked} WRONG`)), ...others.map(() => '')],
  ];
  printTable(title, ['', ...measured.map((m) => m.name), ...others.map((m) => `÷ ${m.name}`)], rows);
  for (const m of measured) console.log(`  ${m.description}`);
  for (const m of measured) {
    for (const mismatch of m.check.mismatches) console.log(`  ${m.name} answered wrongly: ${mismatch}`);
    for (const problem of m.problems) console.log(`  ${m.name} logged: ${problem}`);
  }
}

function printIxfr(figures: TransferFigures[]): void {
  const [, ...others] = figures;
  const first = figures[0];
  const ratios = (values: number[]) => others.map((_, i) => fmt.ratio(values[0] ?? 0, values[i + 1] ?? 0));
  const line = (label: string, pick: (f: TransferFigures) => number, format: (v: number) => string) => {
    const values = figures.map(pick);
    return [label, ...values.map(format), ...ratios(values)];
  };
  printTable(
    `6. One record of ${benchZone} changed, then transferred from each server as primary (client-side, loopback); ratios are edgeplane ÷ the reference`,
    ['', ...figures.map((f) => f.name), ...others.map((f) => `÷ ${f.name}`)],
    [
      line('IXFR octets (one-record change)', (f) => f.ixfr.octets, fmt.int),
      line('IXFR messages', (f) => f.ixfr.messages, fmt.int),
      line('IXFR records', (f) => f.ixfr.records, fmt.int),
      line('IXFR ms (median)', (f) => f.ixfr.ms, fmt.fixed(2)),
      line('AXFR octets', (f) => f.axfr.octets, fmt.int),
      line('AXFR records', (f) => f.axfr.records, fmt.int),
      line('AXFR ms', (f) => f.axfr.ms, fmt.fixed(1)),
    ],
  );
  for (const f of figures) console.log(`  ${f.name}: ${f.description}; serial ${String(f.from)} → ${String(f.to)}`);
  if (first !== undefined) targets.push(`6. IXFR of a one-record change moves a few hundred octets, not the zone: ${fmt.int(first.ixfr.octets)} octets vs AXFR ${fmt.int(first.axfr.octets)} → ${verdict(first.ixfr.octets < 1000)}`);
}

const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');
const targets: string[] = [];
const notes: string[] = [];

try {
  console.log(`edgeplane DNS benchmark — ${new Date().toISOString()}`);
  console.log(`machine: ${cores} cores (${os.cpus()[0]?.model.trim() ?? '?'}), load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; Node ${process.version}`);
  console.log(`edgeplane ${edgeplaneVersion()}: ${workersSupported ? 'has EDGEPLANE_DNS_WORKERS (DNS threads sharing the port with SO_REUSEPORT)' : 'single-threaded DNS (no EDGEPLANE_DNS_WORKERS)'}`);

  if (scenarios.has(1) || scenarios.has(2) || scenarios.has(3) || scenarios.has(5) || scenarios.has(6)) {
    // ---- setup: the zone in edgeplane through its API, exported for the references ----
    progress('setup: zone into edgeplane, export for Knot and PowerDNS');
    const dataDir = path.join(tmp, 'edgeplane-data');
    fs.mkdirSync(dataDir);
    const lines = [...zoneLines(names)];
    let api: EdgeplaneApi;
    let exported: string;
    {
      const server = await startEdgeplane({ dataDir, cpus: undefined, workers: workersSupported ? 1 : undefined, logLevel: 'warn', zone: undefined });
      running.add(server);
      try {
        api = await EdgeplaneApi.login(server.api);
        await api.createZone(benchZone);
        const imported = await api.importZone(benchZone, `$ORIGIN ${benchZone}.\n${lines.join('\n')}\n`);
        if (imported.created !== lines.length || imported.skipped.length > 0) {
          throw new Error(`edgeplane imported ${imported.created} of ${lines.length} RRsets; skipped: ${JSON.stringify(imported.skipped.slice(0, 3))}`);
        }
        exported = await api.exportZone(benchZone);
      } finally {
        running.delete(server);
        await server.stop();
      }
    }
    const zoneFile = path.join(tmp, `${benchZone}.zone`);
    fs.writeFileSync(zoneFile, exported);
    const source: ZoneSource = { zone: benchZone, file: zoneFile };
    const exportedRecords = exported.split('\n').filter((l) => /\tIN\t/.test(l)).length;

    const plainQueries = generateQueries(names, queryCount, 0);
    const ecsQueries = generateQueries(names, queryCount, ecsShare);
    const plainFile = path.join(tmp, 'queries-plain.bin');
    const ecsFile = path.join(tmp, 'queries-ecs.bin');
    fs.writeFileSync(plainFile, binaryQueryFile(plainQueries));
    fs.writeFileSync(ecsFile, binaryQueryFile(ecsQueries));
    const sampleSize = 400;

    const kinds = { a: 0, dual: 0, cname: 0 };
    for (let i = 0; i < names; i++) kinds[kindOf(i)]++;
    let geoNames = 0;
    for (let i = 0; i < names; i++) if (hasPickers(i) && kindOf(i) !== 'cname') geoNames++;
    console.log(
      `zone ${benchZone}: ${fmt.int(names)} names (${fmt.int(kinds.a)} A, ${fmt.int(kinds.dual)} A+AAAA, ${fmt.int(kinds.cname)} CNAME), ${fmt.int(countRecords(names))} records; ` +
        `created in edgeplane by one zone-file import through its API, exported with GET /dns/v2/zones/${benchZone}/export (${fmt.int(exportedRecords)} lines with SOA and NS) and loaded from that file by Knot and PowerDNS`,
    );
    console.log(
      `queries: ${fmt.int(queryCount)} in a seeded order, ${defaultMix.a * 100}% A hits, ${defaultMix.aaaa * 100}% AAAA hits, ${defaultMix.cname * 100}% A at a CNAME, ${defaultMix.nxdomain * 100}% NXDOMAIN; ` +
        'every query with EDNS (UDP 1232), RD clear; dnsperf reads them as a binary (-B) file',
    );
    const dnsperfLine = `dnsperf -B -l ${durationS} -c ${clients} -q ${outstanding} -T 1 -t 2, after a ${warmupS} s warm-up run per server; server CPU = utime+stime from /proc/<pid>/stat (all threads) over the measured run`;
    console.log(dnsperfLine);
    console.log(`answers: before measuring, the first ${sampleSize} queries of the file are asked one by one and compared with what the generated zone says (rcode, AA, answer records)`);

    const sample = (queries: Query[]) => queries.slice(0, sampleSize);
    const edgeplaneAt = (workers: number | undefined, cpus: string | undefined, profile: boolean) => () =>
      startEdgeplane({
        dataDir,
        cpus,
        workers,
        logLevel: 'warn',
        zone: benchZone,
        nodeArgs: profile ? cpuProfArgs(cpuProfDir) : [],
      });
    const results = new Map<number, Measured[]>();

    const oneWorker = workersSupported ? 1 : undefined;
    if (scenarios.has(1)) {
      progress('scenario 1: one worker each');
      const measured = [
        await measure(edgeplaneAt(oneWorker, serverCpus, true), plainFile, sample(plainQueries), false, clientCpus),
        await measure(() => startKnot(source, 1, serverCpus), plainFile, sample(plainQueries), false, clientCpus),
        await measure(() => startPowerDns(source, 1, serverCpus), plainFile, sample(plainQueries), false, clientCpus),
      ];
      results.set(1, measured);
    }
    if (scenarios.has(3)) {
      progress(`scenario 3: all workers (${allWorkers})`);
      const measured = [
        await measure(edgeplaneAt(workersSupported ? allWorkers : undefined, undefined, false), plainFile, sample(plainQueries), false, undefined),
        await measure(() => startKnot(source, allWorkers, undefined), plainFile, sample(plainQueries), false, undefined),
        await measure(() => startPowerDns(source, allWorkers, undefined), plainFile, sample(plainQueries), false, undefined),
      ];
      results.set(3, measured);
    }
    if (scenarios.has(5)) {
      progress('scenario 5: DNSSEC, queries with and without DO (edgeplane signs online, Knot serves the zone signed at load)');
      const server = await startEdgeplane({ dataDir, cpus: undefined, workers: oneWorker, logLevel: 'warn', zone: benchZone });
      running.add(server);
      try {
        await api.at(server.api).enableDnssec(benchZone);
      } finally {
        running.delete(server);
        await server.stop();
      }
      const signedQueries = plainQueries.map((q) => ({ ...q, dnssecOk: true }));
      const signedFile = path.join(tmp, 'queries-do.bin');
      fs.writeFileSync(signedFile, binaryQueryFile(signedQueries));
      const named = (label: string, m: Measured): Measured => ({ ...m, name: label });
      notes.push(
        'scenario 5: the zone of scenario 1 with DNSSEC turned on through the API (edgeplane signs each answer the first time it is asked and keeps it); ' +
          'Knot signs the same zone file when it loads it. The DO runs warm up with one whole pass through the query file first, so every answer has been signed once: ' +
          'the steady state. The first pass costs one ECDSA signature per distinct answer (every distinct missing name too).',
      );
      results.set(5, [
        named('edgeplane DO', await measure(edgeplaneAt(oneWorker, serverCpus, false), signedFile, sample(signedQueries), false, clientCpus, true)),
        named('edgeplane no DO', await measure(edgeplaneAt(oneWorker, serverCpus, false), plainFile, sample(plainQueries), false, clientCpus)),
        named('Knot DO', await measure(() => startKnot(source, 1, serverCpus, undefined, true), signedFile, sample(signedQueries), false, clientCpus)),
        named('Knot no DO', await measure(() => startKnot(source, 1, serverCpus, undefined, true), plainFile, sample(plainQueries), false, clientCpus)),
      ]);
    }
    if (scenarios.has(2)) {
      progress('scenario 2: geodns pickers on a fifth of the names (edgeplane), with ECS on some queries');
      const server = await startEdgeplane({ dataDir, cpus: undefined, workers: oneWorker, logLevel: 'warn', zone: benchZone });
      running.add(server);
      try {
        const rrsets = [];
        for (let i = 0; i < names; i++) if (hasPickers(i) && kindOf(i) !== 'cname') rrsets.push({ name: `host${i}.${benchZone}`, type: 'A', body: geodnsRrset(i) });
        await api.at(server.api).putRrsets(benchZone, rrsets);
      } finally {
        running.delete(server);
        await server.stop();
      }
      const measured = [
        await measure(edgeplaneAt(oneWorker, serverCpus, true), ecsFile, sample(ecsQueries), true, clientCpus),
        await measure(() => startKnot(source, 1, serverCpus), ecsFile, sample(ecsQueries), false, clientCpus),
        await measure(() => startPowerDns(source, 1, serverCpus), ecsFile, sample(ecsQueries), false, clientCpus),
      ];
      results.set(2, measured);
      const withEcs = ecsQueries.filter((q) => q.subnet !== undefined).length;
      notes.push(
        `scenario 2: ${fmt.int(geoNames)} A RRsets (a fifth of the names) have pickers [{type: geodns}] and three records: ${subnets[0].country} → 192.0.2.x, ` +
          `${subnets[1].country} → 198.51.100.x, and {default: true} → the plain address Knot and PowerDNS serve (they serve the zone of scenario 1). ` +
          `${((withEcs / ecsQueries.length) * 100).toFixed(0)}% of the queries carry EDNS Client Subnet (option 8, /24) for ${subnets.map((s) => `${s.address} (${s.country})`).join(', ')}, ` +
          'written into the binary query file (dnsperf -E would put one option on every query). Knot and PowerDNS as configured ignore ECS (no geoip module, edns-subnet-processing off); ' +
          'edgeplane tailors the answer and echoes the option with a scope, and does not cache tailored answers.',
      );
    }

    // Last: it changes a record of the zone the scenarios above check their answers against.
    if (scenarios.has(6)) {
      progress(`scenario 6: one record changed (${changedName(benchZone)}), then IXFR and AXFR from each server as primary`);
      const server = await startEdgeplane({ dataDir, cpus: serverCpus, workers: oneWorker, logLevel: 'warn', zone: benchZone, env: { EDGEPLANE_DNS_TRANSFER_ALLOW: '127.0.0.1' } });
      running.add(server);
      let figures: TransferFigures[];
      try {
        figures = [await measureEdgeplaneIxfr(server, api.at(server.api), benchZone)];
      } finally {
        running.delete(server);
        await server.stop();
      }
      figures.push(await measureKnotIxfr(source, serverCpus));
      printIxfr(figures);
    }

    const s5 = results.get(5);
    if (s5) {
      printScenario('5. DNSSEC: the zone signed (edgeplane online, Knot at load), the same queries with and without the DO bit (one worker each, pinned as in 1); ratios are edgeplane DO ÷ each', s5);
      const ratio = cpuPerQuery(s5[0]!) / cpuPerQuery(s5[1]!);
      targets.push(`5. CPU per signed answer ≤ 1.5× an unsigned one (edgeplane, steady state): ${fmt.ratio(ratio, 1)} → ${verdict(ratio <= 1.5)}; vs Knot pre-signed: ${fmt.ratio(cpuPerQuery(s5[0]!) / cpuPerQuery(s5[2]!), 1)}`);
    }
    if (cpuProfDir !== undefined) console.log(`edgeplane runs with --cpu-prof in scenarios 1 and 2 (profiles in ${cpuProfDir}): its CPU figures there include the profiler`);

    const s1 = results.get(1);
    if (s1) {
      printScenario(`1. One worker each (servers on CPU ${serverCpus ?? 'any'}, dnsperf on CPU ${clientCpus ?? 'any'}); ratios are edgeplane ÷ the reference`, s1);
      const ratio = cpuPerQuery(s1[0]!) / cpuPerQuery(s1[1]!);
      targets.push(`1. CPU per query ≤ 2× Knot's (one worker each): ${fmt.ratio(ratio, 1)} → ${verdict(ratio <= 2)}`);
    }
    const s2 = results.get(2);
    if (s2) {
      printScenario(`2. geodns pickers on a fifth of the names, ${(ecsShare * 100).toFixed(0)}% of queries with ECS (one worker each, pinned as in 1)`, s2);
      const ratio = cpuPerQuery(s2[0]!) / cpuPerQuery(s2[1]!);
      targets.push(`2. CPU per query ≤ 2.5× Knot's with geodns pickers: ${fmt.ratio(ratio, 1)} → ${verdict(ratio <= 2.5)}`);
    }
    const s3 = results.get(3);
    if (s3) {
      const how = workersSupported
        ? `edgeplane EDGEPLANE_DNS_WORKERS=${allWorkers}`
        : 'edgeplane as is (single-threaded: no DNS worker setting in this build)';
      printScenario(`3. All workers: Knot udp-workers ${allWorkers}, PowerDNS receiver-threads ${allWorkers}, ${how}; nothing pinned (dnsperf shares the ${cores} cores)`, s3);
      const ratio = s3[0]!.result.qps / s3[2]!.result.qps;
      targets.push(`3. qps ≥ PowerDNS's with all workers: ${fmt.ratio(ratio, 1)} → ${verdict(ratio >= 1)}`);
    }
  }

  if (scenarios.has(4)) {
    progress(`scenario 4: zone load, ${fmt.int(loadRecords)} records (setup through the API takes a minute or two)`);
    const setup = await prepareLoad(tmp, loadRecords, progress);
    const emptyDir = path.join(tmp, 'edgeplane-empty');
    fs.mkdirSync(emptyDir);
    const figures: LoadFigures[] = [];
    progress('  edgeplane, 1 DNS thread');
    figures.push(await measureEdgeplaneLoad(setup, workersSupported ? 1 : undefined, emptyDir, loadTimeoutMs));
    if (workersSupported) {
      progress(`  edgeplane, ${allWorkers} DNS threads`);
      figures.push(await measureEdgeplaneLoad(setup, allWorkers, emptyDir, loadTimeoutMs));
    }
    progress('  Knot');
    const knot = await measureKnotLoad(setup, loadTimeoutMs);
    figures.push(knot);

    const perRecord = (f: LoadFigures) => ((f.rssKiB - f.baselineKiB) * 1024) / setup.records;
    // Knot is the last column; each edgeplane column gets a ratio to it.
    const loadRow = (label: string, values: number[], format: (v: number) => string, ratios = true) => [
      label,
      ...values.map(format),
      ...values.slice(0, -1).map((v) => (ratios ? fmt.ratio(v, values[values.length - 1]!) : '')),
    ];
    printTable(
      `4. Zone load: ${fmt.int(setup.records)} records (${fmt.int(setup.names)} names, the mix above, no pickers); ratios are edgeplane ÷ Knot`,
      ['', ...figures.map((f) => f.label), ...figures.slice(0, -1).map((f) => `${f.label.replace('edgeplane, ', '')} ÷ Knot`)],
      [
        loadRow('spawn → "DNS listening" log line s', figures.map((f) => f.listeningS), fmt.fixed(1), false),
        loadRow('  load_ms it logged, s', figures.map((f) => f.loggedLoadS), fmt.fixed(1), false),
        loadRow('spawn → SOA answered s', figures.map((f) => f.soaS), fmt.fixed(1)),
        loadRow('RSS when SOA first answered MiB', figures.map((f) => f.rssAtReadyKiB), fmt.mib),
        loadRow(`RSS ${settleS} s later MiB`, figures.map((f) => f.rssKiB), fmt.mib),
        loadRow('peak RSS MiB', figures.map((f) => f.peakKiB), fmt.mib),
        loadRow('RSS with no records (baseline) MiB', figures.map((f) => f.baselineKiB), fmt.mib),
        loadRow('(RSS − empty) per record, bytes', figures.map(perRecord), fmt.int),
      ],
    );
    for (const f of figures) if (f.failure !== undefined) console.log(`  ${f.label} FAILED: ${f.failure}`);
    console.log(`  edgeplane data: ${setup.edgeplaneSetup}; then restarted on that data dir (log level info) per column.`);
    console.log('  Knot: the same records in a zone file (knotd, udp-workers 1, journal-content none), timed from spawn to its SOA answer.');
    console.log(`  RSS from /proc/<pid>/status (VmRSS; peak: VmHWM or sampled every 250 ms); baseline: edgeplane on an empty data dir (no zone), Knot with the zone's SOA and NS only.`);
    const first = figures[0]!;
    const loadS = Number.isNaN(first.listeningS) ? first.soaS : first.listeningS;
    targets.push(`4. load < 30 s (${first.label}, spawn → DNS listening): ${fmt.fixed(1)(loadS)} s → ${verdict(first.failure === undefined && loadS < 30)}`);
    const memRatio = perRecord(first) / perRecord(knot);
    targets.push(`4. memory per record ≤ 2× Knot's (${first.label}): ${fmt.int(perRecord(first))} B vs ${fmt.int(perRecord(knot))} B = ${fmt.ratio(memRatio, 1)} → ${verdict(first.failure === undefined && memRatio <= 2)}`);
    // With the default threads (one per core, at least 2 here) the threads share one image of the zone.
    const all = figures.length > 2 ? figures[1] : undefined;
    if (all !== undefined) {
      const allRatio = perRecord(all) / perRecord(knot);
      targets.push(`4. memory per record ≤ 1.2× Knot's (${all.label}): ${fmt.int(perRecord(all))} B = ${fmt.ratio(allRatio, 1)} → ${verdict(all.failure === undefined && allRatio <= 1.2)}`);
      targets.push(`4. served within 10 s (${all.label}, spawn → SOA answered): ${fmt.fixed(1)(all.soaS)} s → ${verdict(all.failure === undefined && all.soaS <= 10)}`);
      targets.push(`4. empty process ≤ 100 MiB RSS (${all.label}, its baseline): ${fmt.mib(all.baselineKiB)} MiB → ${verdict(all.baselineKiB <= 100 * 1024)}`);
    }
  }

  if (notes.length > 0) console.log(`\nNotes\n${notes.map((n) => `  ${n}`).join('\n')}`);
  if (targets.length > 0) console.log(`\nTargets (edgeplane)\n${targets.map((t) => `  ${t}`).join('\n')}`);
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  await cleanup();
}
