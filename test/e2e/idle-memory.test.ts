// What an idle service holds with the default threads on two cores (two DNS and two proxy threads),
// through a real process (docs/dns-server.md, "Memory"). The bound is well above what it measures
// (about 200 MiB) and well below what it held when every thread kept the young generation start-up
// grew (330 MiB): a regression of that kind fails, the machine's noise does not.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { startService } from '../support/service.ts';

const boundMiB = 250;

const residentMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${String(pid)}/status`, 'utf8'))?.[1]) / 1024;

test(`an idle process with two DNS and two proxy threads holds under ${String(boundMiB)} MiB`, async () => {
  const service = await startService({ engine: 'sqlite', process: true, env: { EDGEPLANE_DNS_WORKERS: '2', EDGEPLANE_PROXY_WORKERS: '2' } });
  try {
    // Each thread gives back its start-up heap once it serves, the main thread last, after the API listens.
    let resident = residentMiB(service.pid);
    for (const until = Date.now() + 15_000; resident >= boundMiB && Date.now() < until; resident = residentMiB(service.pid)) await sleep(200);
    assert.ok(resident < boundMiB, `${resident.toFixed(0)} MiB resident`);
  } finally {
    await service.dispose();
  }
});
