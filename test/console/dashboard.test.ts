// The console's dashboard in Debian's chromium against the real service (SQLite): known DNS queries
// (real UDP) and requests through the proxy, then the charts' text summaries, the totals and the
// rankings in the page are checked against what was sent and against the API's summaries.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { inConsole, launchBrowser, noBrowser, openConsole, screenshot } from '../support/console.ts';
import { ask as askDns } from '../support/dns-client.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminAuth, ask as askProxy, createResource, startOrigin, type Origin } from '../support/proxy.ts';
import { startService, type Service } from '../support/service.ts';
import { eventually } from '../support/wait.ts';

const reader = { email: 'dashboard-reader@example.com', password: 'reader has a long password' };

/** One answered query or request, as the statistics count it. */
interface Counted {
  /** Zone or resource. */
  owner: string;
  kind: string;
}

/** Counts by key, largest first (ties by name): the order of the page's bar charts and rankings. */
function tally(items: Counted[], key: (c: Counted) => string): [string, number][] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].sort(([a, m], [b, n]) => n - m || a.localeCompare(b));
}

const listed = (counts: [string, number][]) => counts.map(([label, n]) => `${label}: ${String(n)}`).join(', ');

describe('console: dashboard', () => {
  let service: Service;
  let origin: Origin;
  let browser: Browser | undefined;
  let auth: string;
  /** The DNS queries answered for the account's zones, each with its type and response code. */
  const queries: (Counted & { rcode: string })[] = [];
  const requests: Counted[] = [];
  const resourceIds = new Map<string, number>();

  before(async () => {
    [service, origin] = await Promise.all([startService({ engine: 'sqlite', env: { EDGEPLANE_STATS_FLUSH: '1' } }), startOrigin('dashboard origin')]);
    auth = await adminAuth(service);
    assert.equal((await call(service.url, 'POST', '/iam/users', { auth, body: { ...reader, role: { name: 'Read-only' } } })).status, 201);
    if (noBrowser === false) browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await Promise.all([service.dispose(), origin.close()]);
  });

  const open = async (options: { email?: string; password?: string; width?: number } = {}) => {
    assert.ok(browser !== undefined);
    return openConsole(browser, service.url, options);
  };

  /** Opens the dashboard (with `query`) and waits until both halves have loaded. */
  const visit = async (page: Page, query = ''): Promise<void> => {
    await page.goto(`${service.url}/console/#/dashboard${query}`);
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'DNS queries' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Protected resources' }).waitFor();
  };

  const caption = (page: Page, title: string) => page.locator('figcaption').filter({ hasText: new RegExp(`^${title} — `) });

  /** Asks the DNS server; an answer for a hosted zone (anything but REFUSED) is one the statistics count. */
  const query = async (zone: string, name: string, type: string) => {
    const { packet } = await askDns(service.dnsPort, name, type);
    if (packet.rcode !== 'REFUSED') queries.push({ owner: zone, kind: type, rcode: packet.rcode });
    return packet;
  };

  const request = async (host: string, localAddress: string) => {
    const answer = await askProxy(service, host, '/', { localAddress });
    // 404: the proxy has not heard of the resource yet, and counts it for none.
    if (answer.status === 200) requests.push({ owner: host, kind: 'passed' });
    else if (answer.status === 403) requests.push({ owner: host, kind: 'blacklist' });
    return answer.status;
  };

  test('an account without traffic sees the empty states', { skip: noBrowser }, async () => {
    await inConsole(open(), async (cp) => {
      const { page } = cp;
      await visit(page);
      await page.getByText('No queries in this range.').waitFor();
      await page.getByText('No requests in this range.').waitFor();
      assert.equal(await page.locator('figure').count(), 0);
      assert.equal(await page.getByLabel('Range').inputValue(), '24h');
      // As the API says.
      assert.equal((await call(service.url, 'GET', '/dns/v2/statistics/summary', { auth })).body.total, 0);
      assert.equal((await call(service.url, 'GET', '/security/statistics/summary', { auth })).body.total, 0);
    });
  });

  test('after known queries and requests, the charts, totals and rankings show them', { skip: noBrowser }, async () => {
    for (const zone of ['alpha.example', 'beta.example']) assert.equal((await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name: zone } })).status, 200);
    const rrset = await call(service.url, 'PUT', '/dns/v2/zones/alpha.example/www.alpha.example/A', { auth, body: { ttl: 60, resource_records: [{ content: ['192.0.2.1'] }] } });
    assert.equal(rrset.status, 200, rrset.text);
    // Until served, the zones' names are refused (and counted for none); each answer after counts.
    await eventually(async () => ((await query('alpha.example', 'www.alpha.example', 'A')).answers?.length ?? 0) > 0 ? true : undefined);
    await eventually(async () => ((await query('beta.example', 'beta.example', 'SOA')).rcode === 'NOERROR' ? true : undefined));
    for (let i = 0; i < 6; i++) await query('alpha.example', 'www.alpha.example', 'A');
    for (let i = 0; i < 3; i++) await query('alpha.example', 'www.alpha.example', 'AAAA');
    for (let i = 0; i < 2; i++) assert.equal((await query('alpha.example', 'missing.alpha.example', 'A')).rcode, 'NXDOMAIN');
    for (let i = 0; i < 2; i++) await query('beta.example', 'beta.example', 'SOA');
    await query('beta.example', 'beta.example', 'MX');

    const busy = await createResource(service, auth, { name: 'busy.example.net', origins: [{ origin_data: origin.address }], blacklists: [{ blacklist_data: '127.0.0.9' }] });
    const quiet = await createResource(service, auth, { name: 'quiet.example.net', origins: [{ origin_data: origin.address }] });
    resourceIds.set('busy.example.net', busy.id).set('quiet.example.net', quiet.id);
    for (const host of resourceIds.keys()) await eventually(async () => ((await request(host, '127.0.0.1')) === 200 ? true : undefined));
    for (let i = 0; i < 4; i++) await request('busy.example.net', '127.0.0.1');
    for (let i = 0; i < 2; i++) assert.equal(await request('busy.example.net', '127.0.0.9'), 403);

    // The statistics are written every second: the API has them all before the page is opened.
    await eventually(async () => ((await call(service.url, 'GET', '/dns/v2/statistics/summary', { auth })).body.total === queries.length ? true : undefined));
    await eventually(async () => ((await call(service.url, 'GET', '/security/statistics/summary', { auth })).body.total === requests.length ? true : undefined));
    const apiSummary = (await call(service.url, 'GET', '/dns/v2/statistics/summary', { auth })).body;

    const zones = tally(queries, (q) => q.owner);
    const resources = tally(requests, (r) => r.owner);
    await inConsole(open(), async (cp) => {
      const { page } = cp;
      await visit(page);
      await page.getByText(`${String(queries.length)} queries in the last 24 hours`).waitFor();
      await page.getByText(`${String(requests.length)} requests in the last 24 hours`).waitFor();
      // Every chart's text summary: the totals sent, by zone, type, response code, resource, outcome.
      const captions: [string, string][] = [
        ['Queries over time', `Total: ${String(queries.length)}`],
        ['Queries per zone', listed(zones)],
        ['Queries by record type', listed(tally(queries, (q) => q.kind))],
        ['Queries by response code', listed(tally(queries.map((q) => ({ owner: q.owner, kind: q.rcode })), (q) => q.kind))],
        ['Requests over time', `Total: ${String(requests.length)}`],
        ['Requests per resource', listed(resources)],
        ['Requests by outcome', listed(tally(requests, (r) => r.kind))],
      ];
      for (const [title, text] of captions) assert.equal(await caption(page, title).textContent(), `${title} — ${text}`);
      // Each chart is drawn (uPlot's canvas), not only summarised.
      assert.equal(await page.locator('figure canvas').count(), captions.length);
      // The API's own names: what the page shows is what the summary answers.
      assert.deepEqual(apiSummary.top_zones.map((z: { name: string }) => z.name), zones.map(([name]) => name));

      // The rankings, each row linking to its zone or resource.
      const zoneRows = page.getByRole('table', { name: 'Top zones' }).locator('tbody tr');
      assert.equal(await zoneRows.count(), zones.length);
      for (const [i, [name, n]] of zones.entries()) {
        const row = zoneRows.nth(i);
        assert.equal(await row.getByRole('link').getAttribute('href'), `#/zones/${name}`);
        assert.equal(await row.getByRole('link').textContent(), name);
        assert.equal(await row.locator('td').first().textContent(), String(n));
      }
      const resourceRows = page.getByRole('table', { name: 'Top resources' }).locator('tbody tr');
      assert.equal(await resourceRows.count(), resources.length);
      for (const [i, [name, n]] of resources.entries()) {
        const row = resourceRows.nth(i);
        assert.equal(await row.getByRole('link', { name }).getAttribute('href'), `#/resources/${String(resourceIds.get(name))}`);
        assert.equal(await row.locator('td').first().textContent(), String(n));
      }
      await screenshot(page, 'dashboard');

      // A zone's link opens its page.
      await page.getByRole('table', { name: 'Top zones' }).getByRole('link', { name: 'alpha.example' }).click();
      await page.waitForURL(/#\/zones\/alpha\.example$/);
    });
  });

  test('the range redraws in place, stays in the address, and keeps the keyboard where it was', { skip: noBrowser }, async () => {
    await inConsole(open(), async (cp) => {
      const { page } = cp;
      // Signed in on the console's bare address, the page shown is named in the address.
      assert.match(page.url(), /\/console\/#\/dashboard$/);
      await visit(page);
      const range = page.getByLabel('Range');
      await range.focus();
      await range.selectOption({ label: 'Last hour' });
      await page.getByText(`${String(queries.length)} queries in the last hour`).waitFor();
      await page.getByText('Showing the last hour').waitFor();
      assert.match(page.url(), /#\/dashboard\?range=1h$/);
      assert.equal(await page.evaluate<string | undefined>('document.activeElement?.tagName'), 'SELECT');
      // Everything was sent a moment ago: in the last hour as in the last 7 days, by the minute here.
      assert.equal(await caption(page, 'Queries over time').textContent(), `Queries over time — Total: ${String(queries.length)}`);
      await range.selectOption({ label: 'Last 7 days' });
      await page.getByText(`${String(requests.length)} requests in the last 7 days`).waitFor();
      assert.match(page.url(), /#\/dashboard\?range=7d$/);
      // A reload shows the same span.
      await page.reload();
      await page.getByText(`${String(queries.length)} queries in the last 7 days`).waitFor();
      assert.equal(await page.getByLabel('Range').inputValue(), '7d');
      assert.equal(await caption(page, 'Requests over time').textContent(), `Requests over time — Total: ${String(requests.length)}`);
      // Back to the default span: the plain address.
      await page.getByLabel('Range').selectOption({ label: 'Last 24 hours' });
      await page.getByText(`${String(queries.length)} queries in the last 24 hours`).waitFor();
      assert.match(page.url(), /#\/dashboard$/);
    });
  });

  test('a Read-only user sees the same dashboard, with nothing to write, on a phone\'s width', { skip: noBrowser }, async () => {
    await inConsole(open({ ...reader, width: 390 }), async (cp) => {
      const { page } = cp;
      await visit(page);
      await page.getByText(`${String(queries.length)} queries in the last 24 hours`).waitFor();
      assert.equal(await caption(page, 'Queries over time').textContent(), `Queries over time — Total: ${String(queries.length)}`);
      assert.equal(await page.locator('[data-write]').count(), 0);
      // Nothing wider than the screen: the charts fit their place, the tables scroll in theirs.
      // Polled from here: waitForFunction's polling evaluates code the page's CSP forbids (it failed so
      // whenever the charts were not laid out at its first look).
      await eventually(async () => ((await page.evaluate<boolean>("[...document.querySelectorAll('.chart canvas')].every((c) => c.getBoundingClientRect().right <= 390)")) ? true : undefined));
      assert.ok(await page.evaluate<boolean>('document.documentElement.scrollWidth <= 390'), 'no horizontal scrolling');
      // The reader's account is the administrator's: the same summary through the API.
      const readerAuth = bearer((await login(service.url, reader.email, reader.password)).access);
      assert.equal((await call(service.url, 'GET', '/dns/v2/statistics/summary', { auth: readerAuth })).body.total, queries.length);
    });
  });
});
