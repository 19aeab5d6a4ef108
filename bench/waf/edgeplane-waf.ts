// What run.ts and proxy-rounds.ts both start: the origin (nginx), and edgeplane's proxy in a process
// of its own with two resources created through the API, one with the WAF on and one with it off,
// in front of that origin. The subjects run on `proxyCpus`, the origin with the load tools on
// `clientCpus` (benchCpus()). And what both send them for CPU: the benign corpus through wrk.
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../test/support/free-port.ts';
import { makeCertificate } from '../proxy/certificate.ts';
import { createResources, resourceBody, startEdgeplaneProxy } from '../proxy/edgeplane.ts';
import { startOrigin } from '../proxy/nginx.ts';
import type { BenchResource } from '../proxy/resources.ts';
import type { BenchRun, ProxyServer } from '../proxy/server.ts';
import { benignBytes, type BenignRequest } from './benign-corpus.ts';
import { requestsScript } from './wrk-requests.ts';

/** The two resources' names: the WAF on, and off. */
export const wafHosts = { on: 'waf-on.bench.example', off: 'waf-off.bench.example' };

export interface WafEdgeplane {
  origin: ProxyServer;
  /** The origin's port (both resources forward to it). */
  originPort: number;
  proxy: ProxyServer;
}

/**
 * Starts both in `run`'s directory (each added to its servers, stopped by its cleanup); `taken`:
 * the ports handed out so far, those chosen here added. `nodeArgs`: extra Node options for the proxy.
 */
export async function startWafEdgeplane(
  run: Pick<BenchRun, 'tmp' | 'running'>,
  options: { taken: Set<number>; proxyCpus: string | undefined; clientCpus: string | undefined; nodeArgs?: string[] },
): Promise<WafEdgeplane> {
  const { taken } = options;
  const originPorts = { primary: await freePort(taken), secondary: await freePort(taken), backup: await freePort(taken) };
  const origin = await startOrigin(originPorts, options.clientCpus);
  run.running.add(origin);
  const cert = makeCertificate(run.tmp, Object.values(wafHosts));
  const resource = (name: string): BenchResource => ({ name, origins: [{ port: originPorts.primary, weight: 1, mode: 'primary' }], whitelist: [], blacklist: [], geoMode: 0, countries: [], rule: undefined });
  const dataDir = path.join(run.tmp, 'edgeplane-data');
  fs.mkdirSync(dataDir);
  await createResources(dataDir, [
    { ...resourceBody(resource(wafHosts.on), cert), is_waf_enabled: true },
    { ...resourceBody(resource(wafHosts.off), cert), is_waf_enabled: false },
  ]);
  const proxy = await startEdgeplaneProxy({
    dataDir,
    httpPort: await freePort(taken),
    httpsPort: await freePort(taken),
    workers: 1,
    cpus: options.proxyCpus,
    readyHost: wafHosts.off,
    nodeArgs: options.nodeArgs,
  });
  run.running.add(proxy);
  return { origin, originPort: originPorts.primary, proxy };
}

/** wrk's scripts of the benign corpus: to the WAF-off resource, to the WAF-on one, and to that one with every target made unique (wrk-requests.ts). */
export function benignScripts(benign: readonly BenignRequest[]): { off: string; on: string; unique: string } {
  return {
    off: requestsScript(benign.map((r) => benignBytes(r, wafHosts.off))),
    on: requestsScript(benign.map((r) => benignBytes(r, wafHosts.on))),
    unique: requestsScript(benign.map((r) => benignBytes(r, wafHosts.on)), true),
  };
}
