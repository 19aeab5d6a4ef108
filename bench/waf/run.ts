// WAF benchmark: edgeplane's proxy (a resource with is_waf_enabled) against Apache httpd with
// mod_security2 and the OWASP Core Rule Set, in front of the same origin, on the same corpora: the
// CRS regression tests' requests (attacks), a benign corpus of ordinary browsing, API and form
// traffic, and the CPU each WAF adds per benign request.
//
//   node bench/waf/run.ts --crs <coreruleset checkout or git dir> [--crs-rev v3.3.4] [--duration 10]
//
// Run by hand, never from `npm test`. See bench/waf/README.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sleep } from '../api/server.ts';
import { edgeplaneVersion } from '../dns/edgeplane.ts';
import { benchCpus, findProgram, requirePrerequisites } from '../dns/server.ts';
import { fmt, printTable } from '../dns/table.ts';
import { cpuMicrosPerRequest, requestsPerSecond, wrk, type LoadRun } from '../proxy/load-run.ts';
import { freePort } from '../../test/support/free-port.ts';
import { benchRun, type ProxyServer } from '../proxy/server.ts';
import { crsRulesDir, crsVersion, modulesDir, ruleIdsByRequest, startApache } from './apache.ts';
import { benignScripts, startWafEdgeplane, wafHosts } from './edgeplane-waf.ts';
import { benignBytes, benignRequests } from './benign-corpus.ts';
import { loadCrsCorpus, type CorpusRequest } from './crs-corpus.ts';
import { paranoiaLevels } from './crs-rules.ts';
import { describe, exchangeAll, type Outcome } from './raw-exchange.ts';

const { values: flags } = parseArgs({
  options: {
    crs: { type: 'string', default: process.env['WAF_BENCH_CRS'] },
    'crs-rev': { type: 'string', default: 'v3.3.4' },
    duration: { type: 'string', default: process.env['BENCH_DURATION'] ?? '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '16' },
    concurrency: { type: 'string', default: '8' },
    timeout: { type: 'string', default: '3' },
    paranoia: { type: 'string', default: '1' },
    threshold: { type: 'string', default: '5' },
  },
});
const durationS = Number(flags.duration);
const warmupS = Number(flags.warmup);
const connections = Number(flags.connections);
const concurrency = Number(flags.concurrency);
const timeoutMs = Number(flags.timeout) * 1000;
const paranoia = Number(flags.paranoia);
const threshold = Number(flags.threshold);
if (
  flags.crs === undefined ||
  ![connections, concurrency, threshold].every((n) => Number.isInteger(n) && n > 0) ||
  !(Number.isInteger(durationS) && durationS >= 0) ||
  !(warmupS >= 0 && timeoutMs > 0) ||
  ![1, 2, 3, 4].includes(paranoia)
) {
  console.error(
    'usage: node bench/waf/run.ts --crs DIR [--crs-rev v3.3.4] [--duration 10] [--warmup 2] [--connections 16] [--concurrency 8] [--timeout 3] [--paranoia 1] [--threshold 5]\n' +
      '--crs: a coreruleset checkout, its tests/regression/tests directory, or a git directory read at --crs-rev\n' +
      '  (git clone --branch v3.3.4 --depth 1 https://github.com/coreruleset/coreruleset); --duration 0: no CPU runs.',
  );
  process.exit(2);
}
const crsSource = path.resolve(flags.crs);

function missingPrerequisites(): string | undefined {
  const missing = [
    findProgram('apache2') ? undefined : 'apache2 (package apache2)',
    fs.existsSync(path.join(modulesDir, 'mod_security2.so')) ? undefined : 'mod_security2 (package libapache2-mod-security2)',
    fs.existsSync(crsRulesDir) ? undefined : 'the Core Rule Set (package modsecurity-crs)',
    findProgram('nginx') ? undefined : 'nginx, the origin (package nginx)',
    findProgram('wrk') ? undefined : 'wrk (package wrk)',
    findProgram('taskset') ? undefined : 'taskset (package util-linux)',
    findProgram('git') && findProgram('tar') ? undefined : 'git and tar, to read the corpus from a git directory (packages git, tar)',
  ].filter((m) => m !== undefined);
  if (missing.length === 0) return undefined;
  return [
    `The WAF benchmark needs Apache with ModSecurity and the CRS, nginx for the origin, and wrk; missing: ${missing.join(', ')}.`,
    'Install them with (as root, on Debian or Ubuntu):',
    '',
    "  printf '#!/bin/sh\\nexit 101\\n' > /usr/sbin/policy-rc.d   # keep Debian from starting the system services",
    '  apt-get install -y apache2 libapache2-mod-security2 modsecurity-crs nginx wrk util-linux git tar',
  ].join('\n');
}

requirePrerequisites(missingPrerequisites());

// The subjects on CPU 0; wrk and the origin on CPU 1 (the corpus client, this process, anywhere).
const { serverCpus: proxyCpus, clientCpus } = benchCpus();

const progress = (line: string) => process.stderr.write(`${line}\n`);
const { tmp, running, cleanup } = benchRun('edgeplane-waf-bench-');

const detected = (o: Outcome) => 'status' in o && o.status === 403;
const passed = (o: Outcome) => 'status' in o && o.status < 400;
const pct = (n: number, of: number) => (of === 0 ? NaN : (n / of) * 100);
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');

/** Outcomes other than 403 and 2xx/3xx, tallied: refusals that are not detections (a parser's 400, a 421, a reset). */
function otherRefusals(outcomes: Outcome[]): string {
  const tally = new Map<string, number>();
  for (const o of outcomes) if (!detected(o) && !passed(o)) tally.set(describe(o), (tally.get(describe(o)) ?? 0) + 1);
  return [...tally].sort((a, b) => b[1] - a[1]).map(([what, n]) => `${what} ×${n}`).join(', ') || 'none';
}

interface Subject {
  server: ProxyServer;
  /** The CRS rule ids behind a refusal, when the subject logs them. */
  rulesOf: (o: Outcome) => string[];
}

try {
  console.log(`edgeplane WAF benchmark — ${new Date().toISOString()}`);
  console.log(`machine: ${os.availableParallelism()} cores (${os.cpus()[0]?.model.trim() ?? '?'}), load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; Node ${process.version}; edgeplane ${edgeplaneVersion()}`);

  progress(`corpus: CRS regression tests from ${crsSource} (${flags['crs-rev']})`);
  const corpus = loadCrsCorpus(crsSource, flags['crs-rev'], path.join(tmp, 'crs'), wafHosts.on);
  const benign = benignRequests();
  const levels = paranoiaLevels(crsRulesDir);

  const taken = new Set<number>();
  progress('setup: origin, edgeplane (API creates the resources, then the proxy), Apache with ModSecurity');
  const { origin, originPort, proxy: edgeplane } = await startWafEdgeplane({ tmp, running }, { taken, proxyCpus, clientCpus });
  const apache = await startApache({ port: await freePort(taken), originPort, wafOn: wafHosts.on, wafOff: wafHosts.off, paranoiaLevel: paranoia, anomalyThreshold: threshold, cpus: proxyCpus });
  running.add(apache);
  // Read once, when the report asks: by then every corpus request has been logged.
  let apacheRules: Map<string, string[]> | undefined;
  const subjects: Subject[] = [
    { server: edgeplane, rulesOf: () => [] },
    {
      server: apache,
      rulesOf: (o) => ('status' in o && o.requestId !== undefined ? ((apacheRules ??= ruleIdsByRequest(apache.errorLog())).get(o.requestId) ?? []) : []),
    },
  ];
  const [ours, ref] = subjects.map((s) => s.server.name) as [string, string];

  // ---- checks: the plumbing, before any figure ----
  const probe = (host: string, target: string) => Buffer.from(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: Mozilla/5.0\r\nAccept: */*\r\nConnection: close\r\n\r\n`);
  const checks = [
    { what: `GET / to ${wafHosts.off}`, bytes: probe(wafHosts.off, '/'), expect: '200' },
    { what: `GET / to ${wafHosts.on}`, bytes: probe(wafHosts.on, '/'), expect: '200' },
    { what: `GET /?q=<script>alert(1)</script> to ${wafHosts.off}`, bytes: probe(wafHosts.off, '/?q=%3Cscript%3Ealert(1)%3C/script%3E'), expect: '200' },
    { what: `GET /?q=<script>alert(1)</script> to ${wafHosts.on}`, bytes: probe(wafHosts.on, '/?q=%3Cscript%3Ealert(1)%3C/script%3E'), expect: '403' },
    { what: `GET /?id=1' OR '1'='1 to ${wafHosts.on}`, bytes: probe(wafHosts.on, "/?id=1'%20OR%20'1'='1"), expect: '403' },
  ];
  const checkRows: string[][] = [];
  for (const check of checks) {
    const results = await Promise.all(subjects.map(async (s) => describe((await exchangeAll(s.server.httpPort, [check.bytes], 1, timeoutMs))[0]!)));
    checkRows.push([check.what, check.expect, ...results.map((r) => (r === check.expect ? r : `${r} (WRONG)`))]);
  }

  // ---- the corpora: every request to both subjects, on a new connection each ----
  const valid = corpus.filter((r) => r.invalid === undefined);
  const attacks = valid.filter((r) => r.kind === 'attack');
  const others = valid.filter((r) => r.kind === 'other');
  const invalid = corpus.filter((r) => r.invalid !== undefined);
  const offHost = (r: CorpusRequest) => Buffer.from(r.bytes.toString('latin1').replace(`Host: ${wafHosts.on}`, `Host: ${wafHosts.off}`), 'latin1');
  interface Run {
    attacks: Outcome[];
    others: Outcome[];
    benign: Outcome[];
    invalidOn: Outcome[];
    invalidOff: Outcome[];
  }
  const runs: Run[] = [];
  for (const s of subjects) {
    const send = (what: string, bytes: Buffer[]) => {
      progress(`corpus: ${what} (${bytes.length}) to ${s.server.name}`);
      return exchangeAll(s.server.httpPort, bytes, concurrency, timeoutMs);
    };
    runs.push({
      attacks: await send('CRS attack tests', attacks.map((r) => r.bytes)),
      others: await send('CRS tests expecting no detection', others.map((r) => r.bytes)),
      benign: await send('benign requests', benign.map((r) => benignBytes(r, wafHosts.on))),
      invalidOn: await send('invalid HTTP, WAF on', invalid.map((r) => r.bytes)),
      invalidOff: await send('invalid HTTP, WAF off', invalid.map(offHost)),
    });
  }
  const [ourRun, refRun] = runs as [Run, Run];

  // ---- CPU per benign request, WAF off and on ----
  interface CpuRow {
    subject: string;
    off: LoadRun;
    on: LoadRun;
    /** WAF on, every request's target made unique (wrk-requests.ts). */
    unique: LoadRun;
  }
  const cpuRows: CpuRow[] = [];
  if (durationS > 0) {
    const scripts = benignScripts(benign);
    const load = (s: ProxyServer, which: keyof typeof scripts, seconds: number) =>
      wrk({ url: `http://127.0.0.1:${s.httpPort}/`, connections, seconds, script: scripts[which], cpus: clientCpus, serverPid: s.pid, dir: tmp });
    const measured = new Map<string, Partial<Record<keyof typeof scripts, LoadRun>>>(subjects.map((s) => [s.server.name, {}]));
    // Alternating subjects: drift in the machine's other load falls on every figure alike.
    for (const which of ['off', 'on', 'unique'] as const) {
      for (const s of subjects) {
        progress(`cpu: ${s.server.name}, WAF ${which === 'unique' ? 'on, unique targets' : which} (${warmupS} s warm-up, ${durationS} s measured)`);
        if (warmupS > 0) await load(s.server, which, warmupS);
        measured.get(s.server.name)![which] = await load(s.server, which, durationS);
        await sleep(500);
      }
    }
    for (const s of subjects) {
      const m = measured.get(s.server.name)!;
      cpuRows.push({ subject: s.server.name, off: m.off!, on: m.on!, unique: m.unique! });
    }
  }

  // ---- report ----
  console.log(`\nsubjects pinned to CPU ${proxyCpus ?? 'any'}; wrk and the origin to CPU ${clientCpus ?? 'any'}; ratios are ${ours} ÷ ${ref}`);
  for (const s of subjects) console.log(`  ${s.server.description}`);
  console.log(`  ${origin.description}`);
  console.log(
    `resources: ${wafHosts.on} (WAF on: edgeplane is_waf_enabled true, Apache SecRuleEngine On) and ${wafHosts.off} (WAF off); ` +
      `corpus requests sent as their exact bytes on a new connection each, ${concurrency} at a time, ${timeoutMs / 1000} s to answer; 403 = detected`,
  );
  console.log(
    `CRS regression tests ${flags['crs-rev']}: ${corpus.length} requests; ${attacks.length} attacks (CRS expects its rule to fire), ${others.length} tests expecting no detection, ` +
      `${invalid.length} not valid HTTP/1.x (sent, reported apart); Host: localhost names ${wafHosts.on}. Benign corpus: ${benign.length} requests.`,
  );
  printTable('Checks before the corpora', ['request', 'expected', ours, ref], checkRows);

  const categories = [...new Set(attacks.map((r) => r.category))].sort();
  const detectionRow = (label: string, members: number[]) => {
    const n = members.length;
    const count = (run: Run) => members.filter((i) => detected(run.attacks[i]!)).length;
    const pl = members.filter((i) => (levels.get(attacks[i]!.ruleId) ?? 1) <= paranoia);
    const a = pct(count(ourRun), n);
    const b = pct(count(refRun), n);
    return [label, fmt.int(n), fmt.fixed(1)(a), fmt.fixed(1)(b), fmt.ratio(a, b), fmt.int(pl.length), fmt.fixed(1)(pct(pl.filter((i) => detected(refRun.attacks[i]!)).length, pl.length))];
  };
  const indices = (pred: (r: CorpusRequest) => boolean) => attacks.flatMap((r, i) => (pred(r) ? [i] : []));
  // The CRS tests are uneven (1,051 of the 2,176 attacks are Java's, 418 of them one rule's): each category counted once as well.
  const categoryMean = (run: Run) =>
    categories.reduce((sum, c) => {
      const members = indices((r) => r.category === c);
      return sum + pct(members.filter((i) => detected(run.attacks[i]!)).length, members.length);
    }, 0) / categories.length;
  printTable(
    `Detection: CRS regression tests' attacks answered 403, % (paranoia level ${paranoia}, anomaly threshold ${threshold})`,
    ['category', 'tests', ours, ref, 'ratio', `tests of PL≤${paranoia} rules`, `${ref} on those`],
    [
      ...categories.map((c) => detectionRow(c, indices((r) => r.category === c))),
      detectionRow('total', indices(() => true)),
      ['mean of the categories', '', fmt.fixed(1)(categoryMean(ourRun)), fmt.fixed(1)(categoryMean(refRun)), fmt.ratio(categoryMean(ourRun), categoryMean(refRun)), '', ''],
    ],
  );
  for (const [i, run] of runs.entries()) console.log(`  ${subjects[i]!.server.name}, attacks answered otherwise than 403 or 2xx/3xx: ${otherRefusals(run.attacks)}`);

  const groups = [...new Set(benign.map((r) => r.group))];
  const fpRow = (label: string, members: number[]) => {
    const count = (run: Run) => members.filter((i) => detected(run.benign[i]!)).length;
    const a = pct(count(ourRun), members.length);
    const b = pct(count(refRun), members.length);
    return [label, fmt.int(members.length), fmt.fixed(1)(a), fmt.fixed(1)(b), fmt.ratio(a, b)];
  };
  const benignIndices = (pred: (g: string) => boolean) => benign.flatMap((r, i) => (pred(r.group) ? [i] : []));
  printTable('False positives: benign requests answered 403, %', ['group', 'requests', ours, ref, 'ratio'], [...groups.map((g) => fpRow(g, benignIndices((x) => x === g))), fpRow('total', benignIndices(() => true))]);
  for (const [i, run] of runs.entries()) {
    const s = subjects[i]!;
    console.log(`  ${s.server.name}, benign requests answered otherwise than 403 or 2xx/3xx: ${otherRefusals(run.benign)}`);
    for (const [j, o] of run.benign.entries()) {
      if (!detected(o)) continue;
      const rules = s.rulesOf(o);
      console.log(`  ${s.server.name} refused: ${benign[j]!.standsFor} (${benign[j]!.method} ${benign[j]!.target.slice(0, 80)})${rules.length > 0 ? `: CRS rules ${rules.join(', ')}` : ''}`);
    }
  }

  console.log(
    `\nCRS tests expecting no detection (${others.length}; their rule must not fire, another may): answered 403 by ${ours} ${others.filter((_, i) => detected(ourRun.others[i]!)).length}, ` +
      `by ${ref} ${others.filter((_, i) => detected(refRun.others[i]!)).length}`,
  );

  printTable(
    `Requests of the corpus that are not valid HTTP/1.x (${invalid.length}), sent raw: each subject's answer with its WAF on / off`,
    ['test', 'kind', 'why not valid', ours, ref],
    invalid.map((r, i) => [r.id, r.kind, r.invalid!.slice(0, 60), `${describe(ourRun.invalidOn[i]!)} / ${describe(ourRun.invalidOff[i]!)}`, `${describe(refRun.invalidOn[i]!)} / ${describe(refRun.invalidOff[i]!)}`]),
  );

  if (cpuRows.length > 0) {
    printTable(
      `CPU per benign request: wrk -t1 -c${connections}, keep-alive, the ${benign.length} benign requests in turn, ${durationS} s each (proxy CPU = utime+stime of the subject's process tree ÷ responses)`,
      ['subject', 'req/s WAF off', 'req/s WAF on', 'CPU µs/req off', 'CPU µs/req on', 'WAF adds', 'unique targets: µs/req on', 'WAF adds', 'refused off', 'refused on', 'failed'],
      cpuRows.map((r) => {
        const off = cpuMicrosPerRequest(r.off);
        const on = cpuMicrosPerRequest(r.on);
        const unique = cpuMicrosPerRequest(r.unique);
        return [
          r.subject,
          fmt.int(requestsPerSecond(r.off)),
          fmt.int(requestsPerSecond(r.on)),
          fmt.num(off),
          fmt.num(on),
          `${fmt.fixed(0)((on / off - 1) * 100)}%`,
          fmt.num(unique),
          `${fmt.fixed(0)((unique / off - 1) * 100)}%`,
          fmt.int(r.off.refused),
          `${fmt.int(r.on.refused)} / ${fmt.int(r.unique.refused)}`,
          fmt.int(r.off.failures + r.on.failures + r.unique.failures),
        ];
      }),
    );
    console.log(
      '  unique targets: the same requests with the WAF on, each target given one more query argument, a counter (?_=N): no target is seen twice, so what edgeplane remembers of targets, request lines and whole requests (their verdicts) does not spare their inspection',
    );
  }

  const total = (run: Run, of: 'attacks' | 'benign') => pct(run[of].filter(detected).length, run[of].length);
  const targets = [
    `detection ≥ ${ref}'s at paranoia level ${paranoia}, all tests: ${fmt.fixed(1)(total(ourRun, 'attacks'))}% vs ${fmt.fixed(1)(total(refRun, 'attacks'))}% → ${verdict(total(ourRun, 'attacks') >= total(refRun, 'attacks'))}`,
    `detection ≥ ${ref}'s, mean of the categories: ${fmt.fixed(1)(categoryMean(ourRun))}% vs ${fmt.fixed(1)(categoryMean(refRun))}% → ${verdict(categoryMean(ourRun) >= categoryMean(refRun))}`,
    `false positives no higher than ${ref}'s: ${fmt.fixed(1)(total(ourRun, 'benign'))}% vs ${fmt.fixed(1)(total(refRun, 'benign'))}% → ${verdict(total(ourRun, 'benign') <= total(refRun, 'benign'))}`,
  ];
  const ourCpu = cpuRows.find((r) => r.subject === ours);
  if (ourCpu !== undefined) {
    const added = cpuMicrosPerRequest(ourCpu.on) / cpuMicrosPerRequest(ourCpu.off) - 1;
    const addedUnique = cpuMicrosPerRequest(ourCpu.unique) / cpuMicrosPerRequest(ourCpu.off) - 1;
    targets.push(`the WAF adds at most 30% CPU per benign request: ${fmt.fixed(0)(added * 100)}% → ${verdict(added <= 0.3)} (with unique targets: ${fmt.fixed(0)(addedUnique * 100)}%)`);
  }
  console.log(`\nTargets (issue 13, ${ours})\n${targets.map((t) => `  ${t}`).join('\n')}`);

  const logged = subjects.flatMap((s) => [...s.server.log.problems].map(([line, n]) => `  ${s.server.name} logged ×${n}: ${line}`));
  if (logged.length > 0) console.log(`\nLog lines at warn or above on the subjects' output\n${logged.slice(0, 20).join('\n')}`);
  for (const s of subjects) if (s.server.hasExited()) console.log(`${s.server.name} EXITED during the run`);
  console.log(`\nCRS rule files: ${crsRulesDir} (CRS ${crsVersion()})`);
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  await cleanup();
}
