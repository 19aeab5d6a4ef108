// The record sets of a zone in the console, through the real service in chromium: RRsets of several
// types made in the editor and served by the DNS server, a geodns RRset whose answers depend on the
// requester's country, the API's validation messages next to their fields, editing, deleting and
// filtering the zone's table, and a Read-only user's view.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { inConsole, launchBrowser, noBrowser, openConsole, screenshot } from '../support/console.ts';
import { ask } from '../support/dns-client.ts';
import { call } from '../support/http.ts';
import { adminAuth } from '../support/proxy.ts';
import { startService, type Service } from '../support/service.ts';

const zone = 'shop.example';

describe('web console: record sets', () => {
  let service: Service;
  let browser: Browser | undefined;
  let auth: string;

  before(async () => {
    service = await startService({ engine: 'sqlite' });
    auth = await adminAuth(service);
    const created = await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name: zone } });
    assert.equal(created.status, 200, created.text);
    if (noBrowser === false) browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service.dispose();
  });

  const getRrset = (name: string, type: string) => call(service.url, 'GET', `/dns/v2/zones/${zone}/${name}/${type}`, { auth });
  const putRrset = async (name: string, type: string, body: unknown) => {
    const response = await call(service.url, 'PUT', `/dns/v2/zones/${zone}/${name}/${type}`, { auth, body });
    assert.equal(response.status, 200, response.text);
  };
  /** The answer section of a real DNS query, optionally with an EDNS Client Subnet of a /24. */
  const dns = async (name: string, type: string, subnet?: string) => {
    const reply = await ask(service.dnsPort, name, type, subnet === undefined ? {} : { subnet: { address: subnet, prefix: 24 } });
    return (reply.packet.answers ?? []).map((a) => ({ data: 'data' in a ? (a.data as unknown) : undefined, ttl: 'ttl' in a ? a.ttl : undefined }));
  };

  test('RRsets of seven types made in the editor are stored and served', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      const made: [name: string, type: string, fields: [label: string, value: string][][], content: unknown[][]][] = [
        ['www', 'A', [[['IPv4 address', '192.0.2.10']], [['IPv4 address', '192.0.2.11']]], [['192.0.2.10'], ['192.0.2.11']]],
        ['www', 'AAAA', [[['IPv6 address', '2001:DB8:0:0::10']]], [['2001:db8::10']]],
        ['@', 'MX', [[['Preference', '10'], ['Mail exchange', 'mail.shop.example.']]], [[10, 'mail.shop.example.']]],
        ['@', 'TXT', [[['Text', 'v=spf1 mx -all']]], [['v=spf1 mx -all']]],
        ['alias', 'CNAME', [[['Target', 'www.shop.example.']]], [['www.shop.example.']]],
        ['_sip._tcp', 'SRV', [[['Priority', '10'], ['Weight', '5'], ['Port', '5061'], ['Target', 'sip.shop.example.']]], [[10, 5, 5061, 'sip.shop.example.']]],
        ['@', 'CAA', [[['Flags', '0'], ['Tag', 'issue'], ['Value', 'letsencrypt.org']]], [[0, 'issue', 'letsencrypt.org']]],
      ];
      for (const [name, type, records, content] of made) {
        await go(page, `/zones/${zone}/rrsets/new`);
        await page.getByLabel('Name', { exact: true }).fill(name);
        await page.getByLabel('Type', { exact: true }).selectOption(type);
        await page.getByLabel('TTL (seconds)').fill('600');
        for (const [i, fields] of records.entries()) {
          if (i > 0) await page.getByRole('button', { name: 'Add record' }).click();
          for (const [label, value] of fields) await record(page, i + 1).getByLabel(label, { exact: true }).fill(value);
        }
        await page.getByRole('button', { name: 'Create record set' }).click();
        const fqdn = name === '@' ? zone : `${name}.${zone}`;
        await page.getByRole('link', { name: `Edit ${fqdn} ${type}` }).waitFor();
        const stored = await getRrset(fqdn, type);
        assert.equal(stored.status, 200, `${fqdn} ${type}: ${stored.text}`);
        assert.equal(stored.body.ttl, 600);
        assert.deepEqual(stored.body.resource_records.map((r: { content: unknown[] }) => r.content), content, `${fqdn} ${type}`);
      }

      assert.deepEqual((await dns(`www.${zone}`, 'A')).map((a) => a.data).sort(), ['192.0.2.10', '192.0.2.11']);
      assert.deepEqual((await dns(`www.${zone}`, 'AAAA')).map((a) => [a.data, a.ttl]), [['2001:db8::10', 600]]);
      assert.deepEqual((await dns(zone, 'MX')).map((a) => a.data), [{ preference: 10, exchange: 'mail.shop.example' }]);
      assert.deepEqual((await dns(zone, 'TXT')).map((a) => (a.data as Buffer[]).map(String)), [['v=spf1 mx -all']]);
      assert.deepEqual((await dns(`alias.${zone}`, 'CNAME')).map((a) => a.data), [`www.${zone}`]);
      assert.deepEqual((await dns(`_sip._tcp.${zone}`, 'SRV')).map((a) => a.data), [{ priority: 10, weight: 5, port: 5061, target: 'sip.shop.example' }]);
      const caa = (await dns(zone, 'CAA')).map((a) => a.data as { tag: string; value: string; flags: number });
      assert.deepEqual(caa.map((c) => [c.flags, c.tag, c.value]), [[0, 'issue', 'letsencrypt.org']]);

      // Creating one again says where to change it; nothing is replaced.
      await go(page, `/zones/${zone}/rrsets/new?type=TXT`);
      await page.getByLabel('Name', { exact: true }).fill('@');
      await record(page, 1).getByLabel('Text').fill('replaced?');
      await page.getByRole('button', { name: 'Create record set' }).click();
      await page.getByRole('alert').filter({ hasText: `A TXT record set named @ already exists` }).waitFor();
      assert.deepEqual((await getRrset(zone, 'TXT')).body.resource_records[0].content, ['v=spf1 mx -all']);

      // The zone's table shows them, the two A records on one row (a reload clears the notices).
      await go(page, `/zones/${zone}`);
      await page.reload();
      const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: `www.${zone}`, exact: true }) }).filter({ hasText: '192.0.2.10' });
      await row.waitFor();
      assert.match((await row.textContent()) ?? '', /192\.0\.2\.10.*192\.0\.2\.11/);
      await screenshot(page, 'records');
    });
  });

  test('a geodns RRset made in the editor answers by the requester\'s country', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await go(page, `/zones/${zone}/rrsets/new?type=A`);
      await page.getByLabel('Name', { exact: true }).fill('geo');
      await record(page, 1).getByLabel('IPv4 address').fill('192.0.2.101');
      await page.getByRole('button', { name: 'Add record' }).click();
      await record(page, 2).getByLabel('IPv4 address').fill('192.0.2.102');
      // Record 1 for the United States (picked from the country list by name), record 2 for the Netherlands.
      for (const [n, country] of [[1, 'United States'], [2, 'NL']] as const) {
        const meta = record(page, n).getByText('Meta for pickers');
        await meta.click();
        const countries = record(page, n).getByLabel('Countries', { exact: true });
        await countries.fill(country);
        await countries.press('Enter');
      }
      await record(page, 1).getByLabel('Weight (weighted_shuffle)').fill('10');
      await record(page, 1).getByLabel('Notes').fill('US edge');
      await record(page, 2).getByLabel('AS numbers').fill('3333, 1140');
      await record(page, 2).getByLabel('Continents', { exact: true }).fill('EU');
      await record(page, 2).getByLabel('Continents', { exact: true }).press('Enter');

      // first_n added first, then geodns moved above it with the keyboard.
      await page.getByLabel('Picker to add').selectOption('first_n');
      await page.getByRole('button', { name: 'Add picker' }).click();
      await page.getByLabel('Picker to add').selectOption('geodns');
      await page.getByRole('button', { name: 'Add picker' }).click();
      await page.getByRole('button', { name: 'Move picker 2 (geodns) up' }).focus();
      await page.keyboard.press('Enter');
      assert.equal(await page.getByRole('group', { name: 'Picker 1: geodns' }).count(), 1);
      // Focus stayed on the moved picker: its next move is down.
      assert.equal(await page.evaluate<string | null>("document.activeElement?.getAttribute('aria-label')"), 'Move picker 1 (geodns) down');
      assert.equal(await page.getByRole('group', { name: 'Picker 2: first_n' }).getByLabel('Limit').inputValue(), '1');
      await screenshot(page, 'rrset-editor');
      await page.getByRole('button', { name: 'Create record set' }).click();
      await page.getByRole('link', { name: `Edit geo.${zone} A` }).waitFor();

      const stored = (await getRrset(`geo.${zone}`, 'A')).body;
      assert.deepEqual(stored.pickers, [
        { type: 'geodns', limit: 0, strict: false },
        { type: 'first_n', limit: 1, strict: false },
      ]);
      assert.deepEqual(
        stored.resource_records.map((r: { content: string[]; meta: unknown }) => [r.content, r.meta]),
        [
          [['192.0.2.101'], { countries: ['US'], weight: 10, notes: ['US edge'] }],
          [['192.0.2.102'], { countries: ['NL'], continents: ['eu'], asn: [3333, 1140] }],
        ],
      );
      // Google's 8.8.8.0/24 is in the US, RIPE's 193.0.6.0/24 in the Netherlands (as test/e2e/dns-server.test.ts).
      assert.deepEqual((await dns(`geo.${zone}`, 'A', '8.8.8.0')).map((a) => a.data), ['192.0.2.101']);
      assert.deepEqual((await dns(`geo.${zone}`, 'A', '193.0.6.0')).map((a) => a.data), ['192.0.2.102']);

      // The table sums the chain up.
      await page.getByRole('row').filter({ hasText: 'geodns → first_n (limit 1)' }).waitFor();
    });
  });

  test('the API\'s validation messages appear next to their fields, and nothing is saved', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await go(page, `/zones/${zone}/rrsets/new`);
      await page.getByLabel('Name', { exact: true }).fill('bad');
      await record(page, 1).getByLabel('IPv4 address').fill('192.0.2.1');
      await page.getByRole('button', { name: 'Add record' }).click();
      await record(page, 2).getByLabel('IPv4 address').fill('192.0.2.300');
      await record(page, 1).getByText('Meta for pickers').click();
      await record(page, 1).getByLabel('Countries', { exact: true }).fill('XX');
      await record(page, 1).getByLabel('Countries', { exact: true }).press('Enter');
      await page.getByLabel('Check the records\' health (failover)').check();
      await page.getByLabel('Timeout (seconds)').fill('20');
      await page.getByRole('button', { name: 'Create record set' }).click();

      const address = record(page, 2).getByLabel('IPv4 address');
      await expectError(address, 'A address must be an IPv4 address in dotted-quad form, got "192.0.2.300"');
      assert.equal(await address.getAttribute('aria-invalid'), 'true');
      await expectError(record(page, 1).getByLabel('Countries', { exact: true }), 'must be an ISO 3166-1 alpha-2 country code');
      await expectError(page.getByLabel('Timeout (seconds)'), 'must be 1-10 seconds');
      // Record 1's address was fine: no message there.
      assert.equal(await errorOf(record(page, 1).getByLabel('IPv4 address')).textContent(), '');
      assert.equal((await getRrset(`bad.${zone}`, 'A')).status, 404);

      // With several fields, the message goes to the field the API names.
      await go(page, `/zones/${zone}/rrsets/new?type=MX`);
      await page.getByLabel('Name', { exact: true }).fill('badmail');
      await record(page, 1).getByLabel('Preference').fill('10');
      await record(page, 1).getByLabel('Mail exchange').fill('-bad-.shop.example.');
      await page.getByRole('button', { name: 'Create record set' }).click();
      await expectError(record(page, 1).getByLabel('Mail exchange'), 'MX exchange is not a valid host name');
      assert.equal(await errorOf(record(page, 1).getByLabel('Preference')).textContent(), '');
      assert.equal((await getRrset(`badmail.${zone}`, 'MX')).status, 404);
    });
  });

  test('editing an RRset: TTL, a disabled record, a health check', { skip: noBrowser }, async () => {
    assert.ok(browser);
    // A wildcard owner: '*' travels through the console's links and the API's paths.
    await putRrset('%2A.app', 'A', { ttl: 300, resource_records: [{ content: ['10.0.0.1'] }, { content: ['10.0.0.2'], meta: { custom: 'kept' } }] });
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await go(page, `/zones/${zone}`);
      await page.getByRole('link', { name: `Edit *.app.${zone} A` }).click();
      await page.getByRole('heading', { level: 1, name: `*.app.${zone} A` }).waitFor();
      assert.ok(await page.getByLabel('Type', { exact: true }).isDisabled(), 'the type of an existing RRset is fixed');
      await page.getByLabel('TTL (seconds)').fill('900');
      await record(page, 2).getByLabel('Enabled (served)').uncheck();
      await page.getByLabel('Check the records\' health (failover)').check();
      await page.getByLabel('Protocol').selectOption('TCP');
      await page.getByLabel('Port', { exact: true }).fill('8080');
      await page.getByLabel('Every (seconds)').fill('30');
      await page.getByRole('button', { name: 'Save record set' }).click();
      await page.getByRole('link', { name: `Edit *.app.${zone} A` }).waitFor();

      const stored = (await getRrset(`%2A.app.${zone}`, 'A')).body;
      assert.equal(stored.ttl, 900);
      assert.deepEqual(
        stored.resource_records.map((r: { content: string[]; enabled: boolean; meta: unknown }) => [r.content[0], r.enabled, r.meta]),
        [
          ['10.0.0.1', true, {}],
          ['10.0.0.2', false, { custom: 'kept' }],
        ],
      );
      assert.deepEqual(stored.meta, { failover: { protocol: 'TCP', port: 8080, frequency: 30 } });
      assert.deepEqual((await dns(`any.app.${zone}`, 'A')).map((a) => [a.data, a.ttl]), [['10.0.0.1', 900]]);
      // The table marks the disabled record and the health check.
      const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: `*.app.${zone}`, exact: true }) });
      assert.match((await row.textContent()) ?? '', /10\.0\.0\.2disabled/);
      assert.match((await row.textContent()) ?? '', /health check TCP :8080 every 30 s/);
    });
  });

  test('deleting an RRset asks first; the table filters by name and type', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await putRrset('gone', 'TXT', { ttl: 300, resource_records: [{ content: ['bye'] }] });
    await putRrset('mx-only', 'MX', { ttl: 300, resource_records: [{ content: [20, 'mx.shop.example.'] }] });
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await go(page, `/zones/${zone}`);
      const remove = page.getByRole('button', { name: `Delete gone.${zone} TXT` });
      await remove.click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await getRrset(`gone.${zone}`, 'TXT')).status, 200, 'cancelled: still there');
      await remove.click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await remove.waitFor({ state: 'detached' });
      assert.equal(await page.evaluate<string | null>('document.activeElement?.textContent'), 'Record sets', 'focus goes on from the section');
      assert.equal((await getRrset(`gone.${zone}`, 'TXT')).status, 404);
      // The apex NS cannot be deleted, so it offers no delete.
      assert.equal(await page.getByRole('button', { name: `Delete ${zone} NS` }).count(), 0);

      await page.getByLabel('Filter by type').selectOption('MX');
      const types = await page.locator('table.rrsets tbody tr td:nth-child(2)').allTextContents();
      assert.ok(types.length >= 2 && types.every((t) => t === 'MX'), `only MX rows: ${types.join(' ')}`);
      await page.getByLabel('Filter by name').fill('mx-only');
      assert.deepEqual(await page.locator('table.rrsets tbody th').allTextContents(), [`mx-only.${zone}`]);
      await page.getByLabel('Filter by name').fill('nothing-like-this');
      await page.getByText('No record set matches.').waitFor();
    });
  });

  test('at a phone\'s width the table scrolls in its frame and the editor fits the screen', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await putRrset('phone', 'SRV', {
      ttl: 300,
      pickers: [{ type: 'weighted_shuffle' }],
      resource_records: [{ content: [0, 5, 443, 'a-rather-long-target-name.shop.example.'], meta: { weight: 5, notes: ['first'] } }],
    });
    await inConsole(openConsole(browser, service.url, { width: 390 }), async ({ page }) => {
      const pageWidth = () => page.evaluate<number>('document.documentElement.scrollWidth');
      await go(page, `/zones/${zone}`);
      await page.getByRole('link', { name: `Edit phone.${zone} SRV` }).waitFor();
      assert.ok((await pageWidth()) <= 390, `zone page ${await pageWidth()} px wide`);
      await page.getByRole('link', { name: `Edit phone.${zone} SRV` }).click();
      await record(page, 1).getByLabel('Target').waitFor();
      assert.ok((await pageWidth()) <= 390, `editor ${await pageWidth()} px wide`);
    });
  });

  test('a Read-only user sees the record sets and a disabled editor, with nothing that writes', { skip: noBrowser }, async () => {
    assert.ok(browser);
    const reader = { email: 'reader@shop.example', password: 'reader password 1' };
    const user = await call(service.url, 'POST', '/iam/users', { auth, body: { ...reader, role: { name: 'Read-only' } } });
    assert.equal(user.status, 201, user.text);
    await putRrset('ro', 'A', { ttl: 300, pickers: [{ type: 'geodns' }], resource_records: [{ content: ['192.0.2.7'], meta: { countries: ['DE'] } }] });
    await inConsole(openConsole(browser, service.url, reader), async ({ page }) => {
      await go(page, `/zones/${zone}`);
      await page.getByRole('link', { name: `View ro.${zone} A` }).click();
      await page.getByRole('heading', { level: 1, name: `ro.${zone} A` }).waitFor();
      assert.equal(await record(page, 1).getByLabel('IPv4 address').inputValue(), '192.0.2.7');
      assert.ok(await record(page, 1).getByLabel('IPv4 address').isDisabled());
      assert.ok(await page.getByLabel('Picker type').isDisabled());
      assert.equal(await page.locator('[data-write]').count(), 0);
      assert.equal(await page.getByRole('button', { name: /Save|Delete|Add|Remove|Move/ }).count(), 0);
      assert.equal((await getRrset(`ro.${zone}`, 'A')).status, 200);
    });
  });
});

/** Opens a console route and waits for its page. */
async function go(page: Page, path: string): Promise<void> {
  const hash = JSON.stringify(`#${path}`);
  // The page shown before is marked, so that the wait is for the new one.
  await page.evaluate(`(() => {
    if (location.hash === ${hash}) return;
    document.querySelector('main')?.firstElementChild?.setAttribute('data-left', '');
    location.hash = ${hash};
  })()`);
  await page.locator('main:not([aria-busy="true"]):not(:has([data-left])) h1').waitFor();
}

/** The editor's fieldset of record n (1-based). */
function record(page: Page, n: number): Locator {
  return page.getByRole('group', { name: `Record ${n}`, exact: true });
}

/** The error line that field() ties to a control. */
function errorOf(control: Locator): Locator {
  return control.locator('xpath=ancestor::div[contains(concat(" ", @class, " "), " field ")][1]/p[contains(@class, "field-error")]');
}

async function expectError(control: Locator, text: string): Promise<void> {
  await errorOf(control).filter({ hasText: text }).waitFor();
}
