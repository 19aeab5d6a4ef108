// The failover log in the console's RRset editor, in Debian's chromium against the real service
// (SQLite) whose DNS server checks a real HTTP target on loopback every 0.2 s
// (EDGEPLANE_TEST_HEALTHCHECK_INTERVAL): the target fails and recovers until the log holds more
// than a page of changes, and the pages the editor shows are the API's, newest first.
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { inConsole, launchBrowser, noBrowser, openConsole } from '../support/console.ts';
import { call } from '../support/http.ts';
import { adminAuth } from '../support/proxy.ts';
import { startService, type Service } from '../support/service.ts';

const zone = 'failover-console.test';
const owner = `web.${zone}`;
const address = '127.0.0.8';

interface LogPage {
  log: { action: string; address: string; time: number }[];
  total_amount: number;
}

describe('console: the failover log of a health-checked RRset', { skip: noBrowser }, () => {
  let service: Service;
  let browser: Browser | undefined;
  let target: http.Server;
  let auth: string;
  // Down after 3 failed checks, up after 2 passed ones: this pattern changes the state every 5 checks.
  const pattern = [false, false, false, true, true];
  let answered = 0;
  let flapping = true;

  before(async () => {
    target = http.createServer((_request, response) => {
      const ok = !flapping || pattern[answered % pattern.length] === true;
      answered += 1;
      response.writeHead(ok ? 200 : 503).end();
    });
    const port = await new Promise<number>((resolve) => target.listen(0, address, () => resolve((target.address() as net.AddressInfo).port)));
    service = await startService({ engine: 'sqlite', env: { EDGEPLANE_HEALTHCHECK_ALLOW_PRIVATE: '1', EDGEPLANE_TEST_HEALTHCHECK_INTERVAL: '200ms' } });
    auth = await adminAuth(service);
    assert.equal((await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name: zone } })).status, 200);
    const checked = await call(service.url, 'PUT', `/dns/v2/zones/${zone}/${owner}/A`, {
      auth,
      body: { ttl: 30, meta: { failover: { protocol: 'HTTP', port, frequency: 10, timeout: 1 } }, pickers: [{ type: 'healthcheck' }], resource_records: [{ content: [address] }] },
    });
    assert.equal(checked.status, 200, checked.text);
    const plain = await call(service.url, 'PUT', `/dns/v2/zones/${zone}/plain.${zone}/A`, { auth, body: { ttl: 30, resource_records: [{ content: ['192.0.2.1'] }] } });
    assert.equal(plain.status, 200, plain.text);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service.dispose();
    await new Promise<void>((resolve) => target.close(() => resolve()));
  });

  const logOf = async (query = '') => {
    const answer = await call<LogPage>(service.url, 'GET', `/dns/v2/zones/${zone}/${owner}/A/failover/log${query}`, { auth });
    assert.equal(answer.status, 200, answer.text);
    return answer.body;
  };

  test('the editor pages through the changes, newest first, as the API answers them', async () => {
    // More than a page (10) of changes, then the target stays up; the last change is an "up".
    for (let waited = 0; (await logOf()).total_amount < 12; waited += 200) {
      assert.ok(waited < 20_000, `only ${String((await logOf()).total_amount)} changes logged`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    flapping = false;
    let settled = await logOf();
    for (let waited = 0; settled.log[0]?.action !== 'up'; waited += 200) {
      assert.ok(waited < 5000, 'the record came back up');
      await new Promise((resolve) => setTimeout(resolve, 200));
      settled = await logOf();
    }
    const total = settled.total_amount;

    assert.ok(browser);
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await page.goto(`${service.url}/console/#/zones/${zone}/rrsets/${owner}/A`);
      const log = page.getByRole('table', { name: 'Failover log' });
      await log.waitFor();
      const rows = async () =>
        Promise.all((await log.locator('tbody tr').all()).map(async (row) => [await row.locator('time').getAttribute('datetime'), ...(await row.getByRole('cell').allTextContents()).slice(1)]));
      const expected = (p: LogPage) => p.log.map((e) => [new Date(e.time * 1000).toISOString(), e.address, e.action]);

      await page.getByText(`Changes 1–10 of ${String(total)}, newest first`).waitFor();
      assert.deepEqual(await rows(), expected(await logOf('?offset=0&limit=10')));
      assert.ok(await page.getByRole('button', { name: 'Newer' }).isDisabled());

      await page.getByRole('button', { name: 'Older' }).click();
      await page.getByText(`Changes 11–${String(Math.min(20, total))} of ${String(total)}, newest first`).waitFor();
      assert.deepEqual(await rows(), expected(await logOf('?offset=10&limit=10')));
      assert.equal(await page.getByRole('button', { name: 'Older' }).isDisabled(), total <= 20);

      await page.getByRole('button', { name: 'Newer' }).click();
      await page.getByText(`Changes 1–10 of ${String(total)}, newest first`).waitFor();
      assert.deepEqual(await rows(), expected(await logOf('?offset=0&limit=10')));
    });
  });

  test('an RRset without a health check shows no failover log', async () => {
    assert.ok(browser);
    assert.deepEqual(await call(service.url, 'GET', `/dns/v2/zones/${zone}/plain.${zone}/A/failover/log`, { auth }).then((r) => r.body), { log: [], total_amount: 0 });
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await page.goto(`${service.url}/console/#/zones/${zone}/rrsets/plain.${zone}/A`);
      await page.getByRole('heading', { level: 1, name: `plain.${zone} A` }).waitFor();
      await page.getByRole('heading', { level: 2, name: 'Health check' }).waitFor();
      assert.equal(await page.getByRole('heading', { name: 'Failover log' }).count(), 0);
    });
  });
});
