// The WAF engine alone, in this process: the benign corpus's requests, each parsed afresh from its
// bytes by the proxy's own head parser (fresh strings every round, as a proxy thread sees them),
// inspected with the Core Rule Set at paranoia level 1. Prints µs per request (the median of the
// rounds, the fastest and the mean) for the corpus as it is and with a counter on every target
// (`?_=N`: no target seen twice), so that a change to the engine can be measured without the proxy,
// the origin and wrk around it. Run by hand:
//
//   node bench/waf/engine.ts [--crs /usr/share/modsecurity-crs/rules] [--rounds 40] [--warmup 10]
//
// Profile it with `node --cpu-prof bench/waf/engine.ts …`.
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { isRefusal, parseRequestHead } from '../../src/security/proxy/http1/request-head.ts';
import { inspect, type WafSettings } from '../../src/security/proxy/waf/engine.ts';
import type { WafRequest } from '../../src/security/proxy/waf/request-fields.ts';
import { loadRuleSet } from '../../src/security/proxy/waf/rule-set.ts';
import { benignBytes, benignRequests } from './benign-corpus.ts';
import { atTargetEnd } from './wrk-requests.ts';

const { values } = parseArgs({
  options: {
    crs: { type: 'string', default: '/usr/share/modsecurity-crs/rules' },
    rounds: { type: 'string', default: '40' },
    warmup: { type: 'string', default: '10' },
  },
});
const rounds = Number(values.rounds);
const warmup = Number(values.warmup);

const settings: WafSettings = { paranoia: 1, threshold: 5, budgetMs: Infinity };
const loadStart = performance.now();
const rules = loadRuleSet(values.crs);
console.log(`rule set: ${String(rules.ruleCount)} rules from ${values.crs} in ${(performance.now() - loadStart).toFixed(0)} ms`);

const corpus = benignRequests().map((request) => benignBytes(request, 'waf-on.bench.example'));

/** The request's bytes with a counter `n` added to its target (no target twice, as wrk's unique-targets run sends them), or as they are. */
function withCounter(bytes: Buffer, n: number | undefined): Buffer {
  if (n === undefined) return bytes;
  const { head, separator, tail } = atTargetEnd(bytes);
  return Buffer.concat([head, Buffer.from(`${separator}${String(n)}`, 'latin1'), tail]);
}

/** Requests inspected so far: the unique targets' counter, and each request's id. */
let counter = 0;
/** Milliseconds spent in `inspect` alone (the head parse and the request's making left out). */
let inspecting = 0;
/** One pass over the corpus; returns the requests denied (a benign corpus's false positives). */
function pass(unique: boolean): number {
  let denied = 0;
  for (const raw of corpus) {
    const n = counter++;
    const bytes = withCounter(raw, unique ? n : undefined);
    const end = bytes.indexOf('\r\n\r\n');
    const head = parseRequestHead(bytes.toString('latin1', 0, end), 100);
    if (isRefusal(head)) throw new Error(`corpus request refused by the head parser: ${head.message}`);
    const request: WafRequest = {
      method: head.method,
      url: head.url,
      protocol: `HTTP/1.${String(head.minor)}`,
      headers: head.fields,
      headerBlock: head.block,
      client: '192.0.2.10',
      body: bytes.subarray(end + 4),
      id: `r${String(n)}`,
    };
    const started = performance.now();
    if (inspect(rules, request, settings).denied) denied++;
    inspecting += performance.now() - started;
  }
  return denied;
}

for (const unique of [false, true]) {
  for (let i = 0; i < warmup; i++) pass(unique);
  const cpuStart = process.cpuUsage();
  // Each round's µs per inspection: the median and the fastest are steadier than the mean on a
  // shared machine, where a neighbour's burst slows a few rounds.
  const perRound: number[] = [];
  let denied = 0;
  for (let i = 0; i < rounds; i++) {
    inspecting = 0;
    denied += pass(unique);
    perRound.push((inspecting * 1000) / corpus.length);
  }
  const cpu = process.cpuUsage(cpuStart);
  const requests = rounds * corpus.length;
  const cpuUs = (cpu.user + cpu.system) / requests;
  perRound.sort((a, b) => a - b);
  const median = perRound[Math.floor(perRound.length / 2)] ?? 0;
  const mean = perRound.reduce((sum, us) => sum + us, 0) / perRound.length;
  console.log(
    `${unique ? 'unique targets' : 'corpus as is  '}: inspect ${median.toFixed(1)} µs median of rounds (fastest ${(perRound[0] ?? 0).toFixed(1)}, mean ${mean.toFixed(1)}), ` +
      `with the parse ${cpuUs.toFixed(1)} µs CPU per request (${String(requests)} requests, ${String(denied)} denied)`,
  );
}
