// The console's DNS zones pages in Debian's chromium against the real service (SQLite): every
// action taken in the page is checked through the API and, where the DNS server shows it, with a
// real DNS query.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { inConsole, launchBrowser, noBrowser, openConsole, screenshot } from '../support/console.ts';
import { ask } from '../support/dns-client.ts';
import { call } from '../support/http.ts';
import { adminAuth } from '../support/proxy.ts';
import { startService, type Service } from '../support/service.ts';
import { eventually } from '../support/wait.ts';

interface ApiZone {
  name: string;
  status: string;
  nx_ttl: number;
  refresh: number;
  serial: number;
  dnssec_enabled: boolean;
}

describe('console: DNS zones', () => {
  let service: Service;
  let browser: Browser | undefined;
  let auth: string;

  before(async () => {
    service = await startService({ engine: 'sqlite' });
    auth = await adminAuth(service);
    if (noBrowser === false) browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service.dispose();
  });

  const open = async (options: { email?: string; password?: string } = {}) => {
    assert.ok(browser !== undefined);
    return openConsole(browser, service.url, options);
  };

  const createZone = async (name: string, body: Record<string, unknown> = {}): Promise<void> => {
    const created = await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name, ...body } });
    assert.equal(created.status, 200, created.text);
  };

  const readZone = async (name: string): Promise<ApiZone> => {
    const answer = await call<{ Zone: ApiZone }>(service.url, 'GET', `/dns/v2/zones/${name}`, { auth });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.Zone;
  };

  /** Opens a console view and waits for its heading. */
  const visit = async (page: Page, path: string, heading: string): Promise<void> => {
    await page.goto(`${service.url}/console/#${path}`);
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
  };

  /** The SOA the DNS server answers for a zone, once it has `ready`. */
  const soaOf = (zone: string, ready: (soa: Record<string, number | string>) => boolean) =>
    eventually(async () => {
      const { packet } = await ask(service.dnsPort, zone, 'SOA');
      const answer = packet.answers?.[0];
      if (packet.rcode !== 'NOERROR' || answer?.type !== 'SOA') return undefined;
      const soa = answer.data as unknown as Record<string, number | string>;
      return ready(soa) ? soa : undefined;
    }, 5000);

  test('a zone created in the page is listed by the API and answered by the DNS server', { skip: noBrowser }, async () => {
    await inConsole(open(), async (cp) => {
      const { page } = cp;
      await visit(page, '/zones', 'DNS zones');
      await page.getByLabel('Name', { exact: true }).fill('Created.Example.');
      await page.getByText('SOA settings (optional)').click();
      await page.getByLabel('Negative-answer TTL').fill('600');
      await page.getByRole('button', { name: 'Create zone' }).click();
      // The page of the new zone, under the name as the API keeps it.
      await page.getByRole('heading', { level: 1, name: 'created.example', exact: true }).waitFor();
      await page.getByText('active', { exact: true }).waitFor();

      const listed = await call<{ zones: ApiZone[]; total_amount: number }>(service.url, 'GET', '/dns/v2/zones?name=created.example&exact_match=true', { auth });
      assert.equal(listed.body.total_amount, 1);
      const [zone] = listed.body.zones;
      assert.ok(zone !== undefined);
      assert.equal(zone.nx_ttl, 600);
      const soa = await soaOf('created.example', () => true);
      assert.equal(soa['minimum'], 600);
      assert.equal(soa['serial'], zone.serial);
      assert.match(page.url(), /#\/zones\/created\.example$/, 'the address names the zone as the API keeps it');
    });
  });

  test('a reserved name shows the API\'s message beside the name field', { skip: noBrowser }, async () => {
    await inConsole(open(), async (cp) => {
      const { page } = cp;
      await visit(page, '/zones', 'DNS zones');
      const name = page.getByLabel('Name', { exact: true });
      await name.fill('com');
      await page.getByRole('button', { name: 'Create zone' }).click();
      const refused = await call<{ code: string; fields: { name: string } }>(service.url, 'POST', '/dns/v2/zones', { auth, body: { name: 'com' } });
      assert.equal(refused.body.code, 'reserved_name');
      // The message is the field's own error line: the one its control is described by.
      const errorId = (await name.getAttribute('aria-describedby'))?.split(' ')[0] ?? '';
      const message = page.locator(`[id="${errorId}"]`);
      await message.filter({ hasText: refused.body.fields.name }).waitFor();
      assert.equal(await message.textContent(), refused.body.fields.name);
      assert.equal(await name.getAttribute('aria-invalid'), 'true');
      assert.equal(await name.inputValue(), 'com', 'what was typed is kept');
      const listed = await call<{ total_amount: number }>(service.url, 'GET', '/dns/v2/zones?name=com&exact_match=true', { auth });
      assert.equal(listed.body.total_amount, 0);
    });
  });

  test('search by name and paging follow the API\'s list', { skip: noBrowser }, async () => {
    const names = Array.from({ length: 12 }, (_, i) => `shop-${String(i + 1).padStart(2, '0')}.example`);
    for (const name of names) await createZone(name);
    await createZone('other.example');
    await inConsole(open(), async (cp) => {
      const { page } = cp;
      await visit(page, '/zones', 'DNS zones');
      await page.getByRole('link', { name: 'other.example' }).waitFor();
      await screenshot(page, 'zones');

      await page.getByLabel('Search by name').fill('shop-');
      await page.getByLabel('Per page').selectOption('10');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('Zones 1–10 of 12 containing “shop-”').waitFor();
      const rows = page.getByRole('table', { name: 'Zones' }).locator('tbody tr');
      const firstPage = await call<{ zones: ApiZone[]; total_amount: number }>(service.url, 'GET', '/dns/v2/zones?name=shop-&limit=10&offset=0', { auth });
      assert.equal(firstPage.body.total_amount, 12);
      assert.deepEqual(await rows.locator('th').allTextContents(), firstPage.body.zones.map((z) => z.name));
      assert.ok(await page.getByRole('button', { name: 'Previous' }).isDisabled());

      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByText('Zones 11–12 of 12').waitFor();
      const secondPage = await call<{ zones: ApiZone[] }>(service.url, 'GET', '/dns/v2/zones?name=shop-&limit=10&offset=10', { auth });
      assert.deepEqual(await rows.locator('th').allTextContents(), secondPage.body.zones.map((z) => z.name));
      assert.deepEqual(await rows.locator('th').allTextContents(), ['shop-11.example', 'shop-12.example']);
      assert.ok(await page.getByRole('button', { name: 'Next' }).isDisabled());
      assert.match(page.url(), /#\/zones\?name=shop-&offset=10&limit=10$/, 'the address keeps the view');

      // A reload of that address shows the same page.
      await page.reload();
      await page.getByText('Zones 11–12 of 12').waitFor();
      await page.getByRole('button', { name: 'Previous' }).click();
      await page.getByText('Zones 1–10 of 12').waitFor();
      assert.equal(await rows.count(), 10);
    });
  });

  test('SOA settings are saved, served, and an invalid refresh shows the API\'s message beside it', { skip: noBrowser }, async () => {
    await createZone('soa.example');
    await inConsole(open(), async (cp) => {
      const { page } = cp;
      await visit(page, '/zones/soa.example?tab=settings', 'soa.example');
      await page.getByLabel('Negative-answer TTL').fill('120');
      await page.getByLabel('Contact').fill('dns-admin@soa.example');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByText('Settings saved').waitFor();
      const saved = await readZone('soa.example');
      assert.equal(saved.nx_ttl, 120);
      const soa = await soaOf('soa.example', (s) => s['minimum'] === 120);
      assert.equal(soa['serial'], saved.serial);
      // The page shows the serial the save moved on to.
      assert.equal(await page.getByLabel('Serial').inputValue(), String(saved.serial));

      await page.getByLabel('Refresh').fill('5');
      await page.getByRole('button', { name: 'Save settings' }).click();
      const refused = await call<{ fields: { refresh: string } }>(service.url, 'PUT', '/dns/v2/zones/soa.example', { auth, body: { refresh: 5 } });
      const refresh = page.getByLabel('Refresh');
      const errorId = (await refresh.getAttribute('aria-describedby'))?.split(' ')[0] ?? '';
      await page.locator(`[id="${errorId}"]`).filter({ hasText: refused.body.fields.refresh }).waitFor();
      assert.equal(await refresh.getAttribute('aria-invalid'), 'true');
      assert.equal((await readZone('soa.example')).refresh, 3600, 'nothing changed');

      // A serial that is not later than the zone's is not used: the API's warning is shown.
      await refresh.fill('7200');
      await page.getByLabel('Serial').fill('1');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByText(/serial 1 is not later than the zone's next serial/).waitFor();
      assert.equal((await readZone('soa.example')).refresh, 7200);
    });
  });

  test('DNSSEC turned on shows the API\'s DS record, ready to copy', { skip: noBrowser }, async () => {
    await createZone('signed.example');
    await inConsole(open(), async (cp) => {
      const { page, context } = cp;
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.url });
      await visit(page, '/zones/signed.example?tab=dnssec', 'signed.example');
      await page.getByRole('button', { name: 'Enable DNSSEC' }).click();
      const ds = page.getByLabel('DS record', { exact: true });
      await ds.waitFor();
      const key = await call<{ ds: string; public_key: string }>(service.url, 'GET', '/dns/v2/zones/signed.example/dnssec', { auth });
      assert.equal(key.status, 200);
      assert.equal(await ds.textContent(), key.body.ds);
      assert.equal((await page.getByLabel('DNSKEY record', { exact: true }).textContent())?.endsWith(key.body.public_key), true);
      await page.getByRole('button', { name: 'Copy DS record' }).click();
      await page.getByText('DS record copied').waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), key.body.ds);
      // A burst of actions shows the newest notices, three at most, not a column of them.
      for (let i = 0; i < 5; i++) await page.getByRole('button', { name: 'Copy DS record' }).click();
      assert.equal(await page.locator('.notices .notice').count(), 3);
      // The DNS server publishes the key the DS was made from.
      const { packet } = await ask(service.dnsPort, 'signed.example', 'DNSKEY', { udpSize: 1232, dnssecOk: true });
      assert.ok((packet.answers ?? []).some((a) => a.type === 'DNSKEY'));

      // Off again, through the confirmation.
      await page.getByRole('button', { name: 'Disable DNSSEC' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Turn off' }).click();
      await page.getByRole('button', { name: 'Enable DNSSEC' }).waitFor();
      assert.equal((await readZone('signed.example')).dnssec_enabled, false);
    });
  });

  test('a pasted zone file is imported, with the skipped lines shown', { skip: noBrowser }, async () => {
    await createZone('import.example');
    const zoneFile = [
      '$ORIGIN import.example.',
      '$TTL 600',
      '@ IN SOA ns1 hostmaster 1 7200 900 1209600 300',
      'www IN A 192.0.2.10',
      'mail 300 IN MX 10 mx.import.example.',
      'bad IN A 999.0.0.1',
      'odd IN FOO something',
      '',
    ].join('\n');
    await inConsole(open(), async (cp) => {
      const { page } = cp;
      await visit(page, '/zones/import.example?tab=file', 'import.example');
      // Choosing a file fills the text area with it.
      await page.getByLabel('Or read it from a file').setInputFiles({ name: 'import.example.zone', mimeType: 'text/plain', buffer: Buffer.from(zoneFile) });
      await eventually(async () => ((await page.getByLabel('Zone file', { exact: true }).inputValue()) === zoneFile ? true : undefined), 5000);
      await page.getByLabel('Zone file', { exact: true }).fill(zoneFile);
      await page.getByRole('button', { name: 'Import' }).click();

      const created = page.getByRole('table', { name: 'Created record sets' });
      await created.waitFor();
      assert.deepEqual(await created.locator('tbody tr').allInnerTexts(), ['www.import.example\tA\t1', 'mail.import.example\tMX\t1']);
      const skipped = page.getByRole('table', { name: 'Skipped lines' });
      const skippedLines = await skipped.locator('tbody tr td:first-child').allTextContents();
      assert.deepEqual(skippedLines, ['3', '6', '7']);
      await skipped.getByText('unsupported record type').waitFor();

      const rrsets = await call<{ rrsets: { name: string; type: string; ttl: number }[] }>(service.url, 'GET', '/dns/v2/zones/import.example/rrsets', { auth });
      const names = rrsets.body.rrsets.map((r) => `${r.name} ${r.type} ${r.ttl}`).sort();
      assert.deepEqual(names, ['import.example NS 86400', 'mail.import.example MX 300', 'www.import.example A 600']);
      const answer = await eventually(async () => {
        const { packet } = await ask(service.dnsPort, 'www.import.example', 'A');
        return packet.answers?.[0]?.type === 'A' ? packet.answers[0] : undefined;
      }, 5000);
      assert.equal(answer.data, '192.0.2.10');

      // A reload rather than waiting for the import's notice to fade: the picture is of the page.
      await visit(page, '/zones/import.example', 'import.example');
      await page.reload();
      await page.locator('.zone-facts').getByText('3 record sets').waitFor();
      await page.waitForLoadState('networkidle');
      await screenshot(page, 'zone');
    });
  });

  test('export downloads <zone>.zone with the API\'s zone file, and shows it', { skip: noBrowser }, async () => {
    await createZone('export.example');
    const put = await call(service.url, 'PUT', '/dns/v2/zones/export.example/www/A', { auth, body: { ttl: 120, resource_records: [{ content: ['192.0.2.7'] }] } });
    assert.equal(put.status, 200, put.text);
    await inConsole(open(), async (cp) => {
      const { page } = cp;
      await visit(page, '/zones/export.example?tab=file', 'export.example');
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export' }).click()]);
      assert.equal(download.suggestedFilename(), 'export.example.zone');
      const downloaded = await readFile(await download.path(), 'utf8');
      const exported = await call<{ raw_zone: string }>(service.url, 'GET', '/dns/v2/zones/export.example/export', { auth });
      assert.equal(downloaded, exported.body.raw_zone);
      assert.match(downloaded, /^www\t120\tIN\tA\t192\.0\.2\.7$/m);
      assert.equal(await page.getByLabel('Zone file of export.example').textContent(), exported.body.raw_zone);
    });
  });

  test('disabling and enabling a zone changes what the DNS server answers', { skip: noBrowser }, async () => {
    await createZone('toggle.example');
    await inConsole(open(), async (cp) => {
      const { page } = cp;
      await visit(page, '/zones?name=toggle.example', 'DNS zones');
      await page.getByRole('button', { name: 'Disable toggle.example' }).click();
      const row = page.locator('tr[data-zone="toggle.example"]');
      await row.getByText('disabled', { exact: true }).waitFor();
      assert.equal((await readZone('toggle.example')).status, 'disabled');
      await eventually(async () => ((await ask(service.dnsPort, 'toggle.example', 'SOA')).packet.rcode === 'REFUSED' ? true : undefined), 5000);

      await page.getByRole('link', { name: 'toggle.example' }).click();
      await page.getByRole('heading', { level: 1, name: 'toggle.example' }).waitFor();
      await page.getByRole('button', { name: 'Enable zone' }).click();
      await page.getByRole('button', { name: 'Disable zone' }).waitFor();
      assert.equal((await readZone('toggle.example')).status, 'active');
      await soaOf('toggle.example', () => true);
    });
  });

  test('deleting a zone asks first, then the API no longer has it', { skip: noBrowser }, async () => {
    await createZone('gone.example');
    await inConsole(open(), async (cp) => {
      const { page } = cp;
      await visit(page, '/zones/gone.example', 'gone.example');
      await page.getByRole('button', { name: 'Delete zone' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('Delete the zone gone.example').waitFor();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await call(service.url, 'GET', '/dns/v2/zones/gone.example', { auth })).status, 200, 'cancelled: still there');

      await page.getByRole('button', { name: 'Delete zone' }).click();
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('heading', { level: 1, name: 'DNS zones' }).waitFor();
      assert.equal((await call(service.url, 'GET', '/dns/v2/zones/gone.example', { auth })).status, 404);
      assert.equal(await page.getByRole('link', { name: 'gone.example' }).count(), 0);
      assert.equal((await ask(service.dnsPort, 'gone.example', 'SOA')).packet.rcode, 'REFUSED');
    });
  });

  test('a read-only user sees the zones without any write action', { skip: noBrowser }, async () => {
    await createZone('readable.example');
    const user = await call(service.url, 'POST', '/iam/users', { auth, body: { email: 'reader@example.com', password: 'reader password 123', role: { name: 'Read-only' } } });
    assert.equal(user.status, 201, user.text);
    await inConsole(open({ email: 'reader@example.com', password: 'reader password 123' }), async (cp) => {
      const { page } = cp;
      await visit(page, '/zones', 'DNS zones');
      await page.getByRole('link', { name: 'readable.example' }).waitFor();
      assert.equal(await page.locator('[data-write]').count(), 0);
      for (const tab of ['', '?tab=settings', '?tab=dnssec', '?tab=file']) {
        await visit(page, `/zones/readable.example${tab}`, 'readable.example');
        assert.equal(await page.locator('[data-write]').count(), 0, tab);
      }
      await visit(page, '/zones/readable.example?tab=settings', 'readable.example');
      assert.ok(await page.getByLabel('Refresh').isDisabled());
      // The export is reading, so it stays.
      await visit(page, '/zones/readable.example?tab=file', 'readable.example');
      await page.getByRole('button', { name: 'Export' }).waitFor();
      const { access } = (await call<{ access: string }>(service.url, 'POST', '/iam/auth/jwt/login', { body: { username: 'reader@example.com', password: 'reader password 123' } })).body;
      assert.equal((await call(service.url, 'PATCH', '/dns/v2/zones/readable.example/disable', { auth: `Bearer ${access}`, body: {} })).status, 403);
    });
  });
});
