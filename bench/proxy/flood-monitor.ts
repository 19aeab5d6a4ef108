// What flood-many.ts watches once a second while a proxy is flooded: the requests that reached the
// origin (its nginx's stub_status counter: the origin serves the proxy under test alone) and the
// proxy's resident memory and CPU time (of the process and its descendants: nginx's workers).
import fs from 'node:fs';
import http from 'node:http';
import { cpuSeconds } from '../api/proc-cpu.ts';
import { memory } from '../dns/server.ts';

export interface MonitorSample {
  /** Date.now() when taken. */
  atMs: number;
  /** Requests the origin has served since it started (stub_status's third figure). */
  originRequests: number;
  proxyRssKiB: number;
  /** utime+stime, seconds. */
  proxyCpuS: number;
}

/** stub_status's body: "Active connections: N \n server accepts handled requests\n A H R \n…". */
function originRequests(statusPort: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port: statusPort, path: '/', agent: false, timeout: 2000 }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => {
        const requests = /^\s*\d+\s+\d+\s+(\d+)\s*$/m.exec(body)?.[1];
        if (requests === undefined) reject(new Error(`not a stub_status answer: ${body.slice(0, 200)}`));
        else resolve(Number(requests));
      });
    });
    request.on('timeout', () => request.destroy(new Error('stub_status did not answer within 2 s')));
    request.on('error', reject);
  });
}

/** `pid` and its descendants, through /proc/<pid>/task/<tid>/children. */
function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    let tasks: string[];
    try {
      tasks = fs.readdirSync(`/proc/${tree[i]!}/task`);
    } catch {
      continue; // exited
    }
    for (const task of tasks) {
      try {
        for (const child of fs.readFileSync(`/proc/${tree[i]!}/task/${task}/children`, 'utf8').trim().split(/\s+/)) if (child !== '') tree.push(Number(child));
      } catch {
        // the thread ended while listing
      }
    }
  }
  return tree;
}

export function treeRssKiB(pid: number): number {
  return processTree(pid).reduce((sum, member) => {
    try {
      return sum + memory(member).rssKiB;
    } catch {
      return sum;
    }
  }, 0);
}

export async function sample(statusPort: number, proxyPid: number): Promise<MonitorSample> {
  return { atMs: Date.now(), originRequests: await originRequests(statusPort), proxyRssKiB: treeRssKiB(proxyPid), proxyCpuS: cpuSeconds(proxyPid) };
}

/** Samples every second until `stop()`, which returns them all (a last one taken then). */
export function monitor(statusPort: number, proxyPid: number): { stop: () => Promise<MonitorSample[]> } {
  const samples: MonitorSample[] = [];
  let failed: Error | undefined;
  const take = () =>
    sample(statusPort, proxyPid).then(
      (s) => void samples.push(s),
      (e: unknown) => void (failed ??= e instanceof Error ? e : new Error(String(e))),
    );
  const timer = setInterval(() => void take(), 1000);
  return {
    stop: async () => {
      clearInterval(timer);
      await take();
      if (failed !== undefined) throw new Error(`monitoring failed: ${failed.message}`, { cause: failed });
      return samples.sort((a, b) => a.atMs - b.atMs);
    },
  };
}
