// The console's views answered through the operator's resolver, in Debian's chromium against the
// real service (SQLite) whose EDGEPLANE_RESOLVER is Knot DNS serving the parent zone (parent.test,
// with delegations and DS records), our name servers' zone (ours.test) and a zone to look records
// up in (site.test): "Check at the registrar" on the DNSSEC tab, the Delegation tab, the DNS lookup
// page. Each result is checked against the API's; a service without a resolver (503) and one whose
// resolver never answers (504) show a notice; a Read-only user uses them all and sees nothing that writes.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { inConsole, launchBrowser, noBrowser, openConsole } from '../support/console.ts';
import { call } from '../support/http.ts';
import { freePort } from '../support/free-port.ts';
import { onPath, startKnot, type Knot } from '../support/knot.ts';
import { adminAuth } from '../support/proxy.ts';
import { startService, type Service } from '../support/service.ts';
import { dsDigest, parentSoa, type DnssecKey } from '../support/parent-zone.ts';

const knotd = onPath('knotd');
const ci = process.env['CI'] !== undefined && process.env['CI'] !== '';
const skip = noBrowser !== false ? noBrowser : knotd === undefined && !ci ? 'knotd is not installed (Debian package "knot")' : false;

interface ParentDs {
  status: string;
  expected: { ds: string; digest: string } | null;
  parent: { key_tag: number; digest: string; matches: boolean }[];
}

interface Delegation {
  status: string;
  authoritative_name_servers: { name: string; ipv4Addresses: string[]; ipv6Addresses: string[] }[];
  expected_name_servers: string[];
}

const reader = { email: 'reader@example.com', password: 'reader has a long password' };

describe('console: lookups through the operator\'s resolver', { skip }, () => {
  let service: Service;
  let unconfigured: Service;
  let silent: Service;
  let silentSocket: dgram.Socket;
  let knot: Knot | undefined;
  let browser: Browser | undefined;
  let auth: string;
  const keys = new Map<string, DnssecKey>();

  before(async () => {
    const port = await freePort();
    silentSocket = dgram.createSocket('udp4');
    // Takes every query and answers none.
    const silentPort = await new Promise<number>((resolve) => silentSocket.bind(0, '127.0.0.1', () => resolve(silentSocket.address().port)));
    const nameservers = { EDGEPLANE_NAMESERVERS: 'ns1.ours.test,ns2.ours.test' };
    [service, unconfigured, silent] = await Promise.all([
      startService({ engine: 'sqlite', env: { ...nameservers, EDGEPLANE_RESOLVER: `127.0.0.1:${String(port)}`, EDGEPLANE_RESOLVER_TIMEOUT: '1s' } }),
      startService({ engine: 'sqlite', env: { ...nameservers, EDGEPLANE_RESOLVER: 'none' } }),
      startService({ engine: 'sqlite', env: { ...nameservers, EDGEPLANE_RESOLVER: `127.0.0.1:${String(silentPort)}`, EDGEPLANE_RESOLVER_TIMEOUT: '1s' } }),
    ]);
    auth = await adminAuth(service);
    for (const zone of ['good', 'stale', 'elsewhere']) {
      const created = await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name: `${zone}.parent.test` } });
      assert.equal(created.status, 200, created.text);
    }
    for (const zone of ['good', 'stale']) {
      const on = await call<DnssecKey>(service.url, 'PATCH', `/dns/v2/zones/${zone}.parent.test/dnssec`, { auth, body: { enabled: true } });
      assert.equal(on.status, 200, on.text);
      keys.set(zone, on.body);
    }
    assert.equal((await call(service.url, 'POST', '/iam/users', { auth, body: { ...reader, role: { name: 'Read-only' } } })).status, 201);
    const good = keys.get('good')!;
    const stale = keys.get('stale')!;
    const parent = [
      parentSoa('parent.test'),
      'parent.test. 300 IN NS ns.parent.test.',
      'ns.parent.test. 300 IN A 127.0.0.1',
      ...['good', 'stale'].flatMap((zone) => [`${zone}.parent.test. 3600 IN NS ns1.ours.test.`, `${zone}.parent.test. 3600 IN NS ns2.ours.test.`]),
      `good.parent.test. 3600 IN DS ${String(good.key_tag)} 13 2 ${dsDigest('good.parent.test', good)}`,
      // The registrar kept an old key's DS.
      `stale.parent.test. 3600 IN DS ${String(stale.key_tag)} 13 2 ${'AB'.repeat(32)}`,
      'elsewhere.parent.test. 3600 IN NS ns1.other.test.',
      'elsewhere.parent.test. 3600 IN NS ns2.other.test.',
    ];
    const ours = [parentSoa('ours.test'), 'ours.test. 300 IN NS ns1.ours.test.', 'ns1.ours.test. 300 IN A 192.0.2.1', 'ns1.ours.test. 300 IN AAAA 2001:db8::1', 'ns2.ours.test. 300 IN A 192.0.2.2'];
    const site = [parentSoa('site.test'), 'site.test. 300 IN NS ns.site.test.', 'www.site.test. 120 IN A 192.0.2.10', 'www.site.test. 120 IN A 192.0.2.11', 'alias.site.test. 60 IN CNAME www.site.test.', 'site.test. 300 IN MX 10 mail.site.test.'];
    knot = await startKnot(
      [
        { name: 'parent.test', text: `${parent.join('\n')}\n` },
        { name: 'ours.test', text: `${ours.join('\n')}\n` },
        { name: 'site.test', text: `${site.join('\n')}\n` },
      ],
      port,
    );
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await knot?.stop();
    silentSocket.close();
    await Promise.all([service.dispose(), unconfigured.dispose(), silent.dispose()]);
  });

  const visit = async (page: Page, base: string, route: string, heading: string): Promise<void> => {
    await page.goto(`${base}/console/#${route}`);
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
  };
  const apiGet = async <T>(base: string, route: string, who = auth) => call<T>(base, 'GET', route, { auth: who });

  test('Check at the registrar shows the parent\'s DS beside ours: a match, then a mismatch', async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await visit(page, service.url, '/zones/good.parent.test?tab=dnssec', 'good.parent.test');
      await page.getByRole('button', { name: 'Check at the registrar' }).click();
      const status = page.locator('.parent-ds-status .status');
      await status.waitFor();
      const answer = (await apiGet<ParentDs>(service.url, '/dns/v2/zones/good.parent.test/dnssec/parent-ds')).body;
      assert.equal(answer.status, 'match');
      assert.equal(await status.getAttribute('data-status'), 'match');
      const key = keys.get('good')!;
      const table = page.getByRole('table', { name: 'DS records at the parent' });
      const row = table.getByRole('row').filter({ hasText: dsDigest('good.parent.test', key) });
      assert.equal(await row.getByRole('cell').first().textContent(), String(key.key_tag));
      assert.equal(await row.getByRole('cell').last().textContent(), 'matches');
      assert.equal(await page.getByRole('region', { name: 'DS of this zone' }).locator('pre').textContent(), answer.expected?.ds);
      assert.equal(await page.locator('.parent-ds .warning').count(), 0, 'nothing to do');

      await visit(page, service.url, '/zones/stale.parent.test?tab=dnssec', 'stale.parent.test');
      await page.getByRole('button', { name: 'Check at the registrar' }).click();
      await page.locator('.parent-ds-status .status[data-status="mismatch"]').waitFor();
      assert.equal((await apiGet<ParentDs>(service.url, '/dns/v2/zones/stale.parent.test/dnssec/parent-ds')).body.status, 'mismatch');
      await page.locator('.parent-ds .warning').filter({ hasText: 'give your registrar the DS record' }).waitFor();
      const staleRow = page.getByRole('table', { name: 'DS records at the parent' }).getByRole('row').filter({ hasText: 'AB'.repeat(32) });
      assert.equal(await staleRow.getByRole('cell').last().textContent(), 'not ours');
    });
  });

  test('the Delegation tab, kept in the address, tells whether the parent delegates to our name servers', async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await visit(page, service.url, '/zones/good.parent.test', 'good.parent.test');
      await page.getByRole('navigation', { name: 'Zone sections' }).getByRole('link', { name: 'Delegation' }).click();
      await page.locator('.delegation-status .status').waitFor();
      assert.match(page.url(), /\?tab=delegation$/);
      const answer = (await apiGet<Delegation>(service.url, '/dns/v2/analyze/good.parent.test/delegation-status')).body;
      assert.equal(answer.status, 'ok');
      assert.equal(await page.locator('.delegation-status .status').getAttribute('data-status'), 'ok');
      const table = page.getByRole('table', { name: 'Name servers reported by the public DNS' });
      for (const ns of answer.authoritative_name_servers) {
        const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: ns.name, exact: true }) });
        assert.deepEqual(await row.getByRole('cell').allTextContents(), [ns.ipv4Addresses.join(', ') || '—', ns.ipv6Addresses.join(', ') || '—', 'ours']);
      }
      assert.deepEqual(answer.authoritative_name_servers.find((ns) => ns.name.startsWith('ns1.'))?.ipv4Addresses, ['192.0.2.1']);

      // A reload opens the same tab; a zone delegated elsewhere says so.
      await visit(page, service.url, '/zones/elsewhere.parent.test?tab=delegation', 'elsewhere.parent.test');
      await page.locator('.delegation-status .status[data-status="wrong"]').waitFor();
      assert.equal((await apiGet<Delegation>(service.url, '/dns/v2/analyze/elsewhere.parent.test/delegation-status')).body.status, 'wrong');
      assert.equal(await page.getByRole('table', { name: 'Name servers reported by the public DNS' }).getByText('not ours').count(), 2);
    });
  });

  test('the DNS lookup page answers what the resolver answers, keeps the question in the address, and places a bad name\'s message', async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'DNS lookup' }).click();
      await page.getByRole('heading', { level: 1, name: 'DNS lookup' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('alias.site.test');
      await page.getByLabel('Type', { exact: true }).selectOption('A');
      await page.getByLabel('Name', { exact: true }).press('Enter');
      const table = page.getByRole('table', { name: 'Records of alias.site.test' });
      await table.waitFor();
      const answer = (await apiGet<{ name: string; type: string; content: string[] }[]>(service.url, '/dns/v2/lookup?name=alias.site.test&type=A')).body;
      assert.deepEqual(
        answer.map((r) => [r.name, r.type]),
        [
          ['alias.site.test.', 'CNAME'],
          ['www.site.test.', 'A'],
        ],
      );
      const shown = async () =>
        Promise.all((await table.locator('tbody tr').all()).map(async (row) => [await row.getByRole('rowheader').textContent(), (await row.getByRole('cell').first().textContent()) ?? '', await row.locator('li').allTextContents()]));
      assert.deepEqual(await shown(), answer.map((r) => [r.name, r.type, r.content]));
      assert.match(page.url(), /#\/lookup\?name=alias\.site\.test&type=A$/);

      // A reload asks again.
      await page.reload();
      await page.getByRole('table', { name: 'Records of alias.site.test' }).waitFor();
      assert.equal(await page.getByLabel('Type', { exact: true }).inputValue(), 'A');

      // No such name: said in words.
      await page.getByLabel('Name', { exact: true }).fill('nothing.site.test');
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.getByText('No records: nothing.site.test does not exist or has none of that type.').waitFor();
      assert.deepEqual((await apiGet(service.url, '/dns/v2/lookup?name=nothing.site.test&type=A')).body, []);

      // A special-use name is refused beside the field.
      const refused = await apiGet<{ fields: Record<string, string> }>(service.url, '/dns/v2/lookup?name=printer.local');
      assert.equal(refused.status, 400, refused.text);
      const message = refused.body.fields['name'];
      assert.ok(message !== undefined, refused.text);
      const name = page.getByLabel('Name', { exact: true });
      await name.fill('printer.local');
      await page.getByLabel('Type', { exact: true }).selectOption('');
      await page.getByRole('button', { name: 'Look up' }).click();
      const errorId = (await name.getAttribute('aria-describedby'))?.split(' ')[0] ?? '';
      await page.locator(`[id="${errorId}"]`).filter({ hasText: message }).waitFor();
      assert.equal(await name.getAttribute('aria-invalid'), 'true');
      assert.equal(await page.getByText('No records:').count(), 0, 'the earlier answer is gone');
    });
  });

  test('without a resolver (503) and with one that never answers (504) the page says so in a notice', async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, unconfigured.url), async (none) => {
      const refused = await apiGet<{ code: string }>(unconfigured.url, '/dns/v2/lookup?name=www.site.test', await adminAuth(unconfigured));
      assert.equal(refused.status, 503, refused.text);
      assert.equal(refused.body.code, 'resolver_unavailable');
      await visit(none.page, unconfigured.url, '/lookup?name=www.site.test', 'DNS lookup');
      await none.page.getByRole('alert').filter({ hasText: 'This service has no resolver to ask' }).waitFor();
    });
    await inConsole(openConsole(browser, silent.url), async (slow) => {
      const silentAuth = await adminAuth(silent);
      const created = await call(silent.url, 'POST', '/dns/v2/zones', { auth: silentAuth, body: { name: 'quiet.test' } });
      assert.equal(created.status, 200, created.text);
      const timedOut = await apiGet<{ code: string }>(silent.url, '/dns/v2/analyze/quiet.test/delegation-status', silentAuth);
      assert.equal(timedOut.status, 504, timedOut.text);
      assert.equal(timedOut.body.code, 'resolver_timeout');
      await visit(slow.page, silent.url, '/zones/quiet.test?tab=delegation', 'quiet.test');
      await slow.page.getByRole('alert').filter({ hasText: 'The resolver did not answer in time' }).waitFor();
      // The button asks again, and tells the same.
      await slow.page.getByRole('button', { name: 'Check again' }).click();
      await slow.page.getByText('Asking the public DNS…').waitFor();
      await slow.page.getByRole('alert').filter({ hasText: 'The resolver did not answer in time' }).waitFor();
    });
  });

  test('a Read-only user on a phone checks the parent DS, the delegation and looks names up, sees nothing that writes, and nothing is wider than the screen', async () => {
    assert.ok(browser);
    // At a phone's width, too.
    await inConsole(openConsole(browser, service.url, { ...reader, width: 390 }), async ({ page }) => {
      const fits = async (what: string) => {
        const width = await page.evaluate<number>('document.documentElement.scrollWidth');
        assert.ok(width <= 390, `${what}: ${String(width)} px wide`);
      };
      await visit(page, service.url, '/zones/good.parent.test?tab=dnssec', 'good.parent.test');
      await page.getByRole('button', { name: 'Check at the registrar' }).click();
      await page.locator('.parent-ds-status .status[data-status="match"]').waitFor();
      assert.equal(await page.locator('[data-write]').count(), 0);
      await fits('DNSSEC tab');
      await visit(page, service.url, '/zones/good.parent.test?tab=delegation', 'good.parent.test');
      await page.locator('.delegation-status .status[data-status="ok"]').waitFor();
      assert.equal(await page.locator('[data-write]').count(), 0);
      await fits('Delegation tab');
      await visit(page, service.url, '/lookup?name=www.site.test&type=A', 'DNS lookup');
      await page.getByRole('table', { name: 'Records of www.site.test' }).getByText('192.0.2.10').waitFor();
      assert.equal(await page.locator('[data-write]').count(), 0);
      await fits('DNS lookup');
    });
  });
});
