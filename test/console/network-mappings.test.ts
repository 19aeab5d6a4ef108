// The console's network mappings pages in Debian's chromium against the real service (SQLite):
// create, edit, delete and import in the page, each checked through the API; the API's field
// errors beside their fields with nothing stored; a phone's width.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { inConsole, launchBrowser, noBrowser, openConsole, screenshot } from '../support/console.ts';
import { call } from '../support/http.ts';
import { adminAuth } from '../support/proxy.ts';
import { startService, type Service } from '../support/service.ts';

interface Mapping {
  id: number;
  name: string;
  mapping: { tags: string[]; cidr4: string[]; cidr6: string[] }[];
}

describe('console: network mappings', () => {
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

  const byName = (name: string) => call<Mapping>(service.url, 'GET', `/dns/v2/network-mappings/by-name/${name}`, { auth });
  const create = async (body: Omit<Mapping, 'id'>): Promise<number> => {
    const created = await call<{ id: number }>(service.url, 'POST', '/dns/v2/network-mappings', { auth, body });
    assert.equal(created.status, 200, created.text);
    return created.body.id;
  };
  const visit = async (page: Page, route: string, heading: string): Promise<void> => {
    await page.goto(`${service.url}/console/#${route}`);
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
  };
  const entry = (page: Page, n: number) => page.getByRole('group', { name: `Entry ${String(n)}`, exact: true });

  test('a mapping created in the page is the one the API answers', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await visit(page, '/network-mappings', 'Network mappings');
      await page.getByText('No network mappings yet.').waitFor();
      await page.getByRole('link', { name: 'New mapping' }).click();
      await page.getByRole('heading', { level: 1, name: 'New network mapping' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('offices');
      await entry(page, 1).getByLabel('Tags').fill('office\nberlin');
      await entry(page, 1).getByLabel('IPv4 networks').fill('192.0.2.0/24\n\n198.51.100.7');
      await entry(page, 1).getByLabel('IPv6 networks').fill('2001:db8::/48');
      await page.getByRole('button', { name: 'Add entry' }).click();
      // The new entry's first control has the focus: keyboard users type on.
      await page.keyboard.type('lab');
      await entry(page, 2).getByLabel('IPv4 networks').fill('203.0.113.0/25');
      await page.getByRole('button', { name: 'Create mapping' }).click();
      await page.getByRole('heading', { level: 1, name: 'offices', exact: true }).waitFor();

      const stored = await byName('offices');
      assert.equal(stored.status, 200, stored.text);
      assert.deepEqual(stored.body.mapping, [
        { tags: ['office', 'berlin'], cidr4: ['192.0.2.0/24', '198.51.100.7'], cidr6: ['2001:db8::/48'] },
        { tags: ['lab'], cidr4: ['203.0.113.0/25'], cidr6: [] },
      ]);
      assert.match(page.url(), new RegExp(`#/network-mappings/${String(stored.body.id)}$`));
      assert.equal(await page.getByLabel('Name', { exact: true }).getAttribute('readonly'), '', 'a mapping cannot be renamed');
    });
  });

  test('a bad network and a bad name are shown beside their fields, and nothing is stored', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await visit(page, '/network-mappings/new', 'New network mapping');
      const name = page.getByLabel('Name', { exact: true });
      await name.fill('-bad name');
      await entry(page, 1).getByLabel('Tags').fill('x');
      const cidr4 = entry(page, 1).getByLabel('IPv4 networks');
      await cidr4.fill('192.0.2.0/24\n2001:db8::1');
      await page.getByRole('button', { name: 'Create mapping' }).click();

      const refused = await call<{ fields: Record<string, string> }>(service.url, 'POST', '/dns/v2/network-mappings', {
        auth,
        body: { name: '-bad name', mapping: [{ tags: ['x'], cidr4: ['192.0.2.0/24', '2001:db8::1'] }] },
      });
      assert.equal(refused.status, 400);
      const nameMessage = refused.body.fields['name'];
      const cidrMessage = refused.body.fields['mapping[0].cidr4[1]'];
      assert.ok(nameMessage !== undefined && cidrMessage !== undefined, refused.text);
      const errorOf = async (control: ReturnType<Page['getByLabel']>) => page.locator(`[id="${(await control.getAttribute('aria-describedby'))?.split(' ')[0] ?? ''}"]`);
      await (await errorOf(name)).filter({ hasText: nameMessage }).waitFor();
      // The list's own error line names the line the bad network is on.
      assert.equal(await (await errorOf(cidr4)).textContent(), `line 2 (2001:db8::1): ${cidrMessage}`);
      assert.equal(await cidr4.getAttribute('aria-invalid'), 'true');
      assert.equal(await cidr4.inputValue(), '192.0.2.0/24\n2001:db8::1', 'what was typed is kept');

      // Fixed, it is created.
      await name.fill('fixed');
      await cidr4.fill('192.0.2.0/24');
      await page.getByRole('button', { name: 'Create mapping' }).click();
      await page.getByRole('heading', { level: 1, name: 'fixed', exact: true }).waitFor();
      const listed = await call<{ network_mappings: Mapping[] }>(service.url, 'GET', '/dns/v2/network-mappings', { auth });
      assert.ok(!listed.body.network_mappings.some((m) => m.name === '-bad name'));
      assert.deepEqual((await byName('fixed')).body.mapping, [{ tags: ['x'], cidr4: ['192.0.2.0/24'], cidr6: [] }]);
    });
  });

  test('entries edited in the page replace the stored ones; Delete asks first, then the API forgets it', { skip: noBrowser }, async () => {
    assert.ok(browser);
    const id = await create({ name: 'edit-me', mapping: [{ tags: ['a'], cidr4: ['192.0.2.1'], cidr6: [] }, { tags: ['b'], cidr4: [], cidr6: ['2001:db8::2'] }] });
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await visit(page, `/network-mappings/${String(id)}`, 'edit-me');
      assert.equal(await entry(page, 2).getByLabel('IPv6 networks').inputValue(), '2001:db8::2');
      await page.getByRole('button', { name: 'Remove entry 1' }).click();
      await entry(page, 1).getByLabel('Tags').fill('b\nc');
      await page.getByRole('button', { name: 'Save mapping' }).click();
      await page.getByText('edit-me saved').waitFor();
      assert.deepEqual((await byName('edit-me')).body.mapping, [{ tags: ['b', 'c'], cidr4: [], cidr6: ['2001:db8::2'] }]);

      // From the list: cancelling keeps it, confirming deletes it.
      await visit(page, '/network-mappings', 'Network mappings');
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'edit-me', exact: true }) });
      assert.equal(await row.getByRole('cell').nth(0).textContent(), '1', 'one entry');
      await page.getByRole('button', { name: 'Delete edit-me' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await byName('edit-me')).status, 200);
      await page.getByRole('button', { name: 'Delete edit-me' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('link', { name: 'edit-me', exact: true }).waitFor({ state: 'detached' });
      assert.equal((await byName('edit-me')).status, 404);
    });
  });

  test('YAML pasted or read from a file is imported whole, or not at all with the reason shown', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await create({ name: 'taken', mapping: [] });
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await visit(page, '/network-mappings', 'Network mappings');
      const yaml = page.getByLabel('YAML', { exact: true });
      // A name the account has: nothing of the file is created.
      await yaml.fill('name: pasted-one\nmapping:\n  - tags: [p]\n    cidr4: [192.0.2.0/26]\n---\nname: taken\nmapping: []\n');
      await page.getByRole('button', { name: 'Import' }).click();
      await page.locator('form .form-error').filter({ hasText: 'taken' }).waitFor();
      assert.equal((await byName('pasted-one')).status, 404, 'none imported');
      // A bad entry is named by its document.
      await yaml.fill('name: pasted-one\nmapping:\n  - cidr6: [192.0.2.1]\n');
      await page.getByRole('button', { name: 'Import' }).click();
      await page.locator('form .form-error').filter({ hasText: 'document 1, mapping[0].cidr6[0]' }).waitFor();

      await yaml.fill('name: pasted-one\nmapping:\n  - tags: [p]\n    cidr4: [192.0.2.0/26]\n---\nname: pasted-two\nmapping:\n  - tags: [q, r]\n    cidr6: ["2001:db8:1::/64"]\n');
      await page.getByRole('button', { name: 'Import' }).click();
      await page.getByRole('link', { name: 'pasted-two', exact: true }).waitFor();
      assert.deepEqual((await byName('pasted-one')).body.mapping, [{ tags: ['p'], cidr4: ['192.0.2.0/26'], cidr6: [] }]);
      assert.deepEqual((await byName('pasted-two')).body.mapping, [{ tags: ['q', 'r'], cidr4: [], cidr6: ['2001:db8:1::/64'] }]);

      const dir = await mkdtemp(path.join(os.tmpdir(), 'mappings-'));
      const file = path.join(dir, 'from-file.yaml');
      await writeFile(file, 'name: from-file\nmapping:\n  - tags: [f]\n    cidr4: [198.51.100.0/24]\n');
      await page.getByLabel('Or read it from a file').setInputFiles(file);
      for (let waited = 0; !(await yaml.inputValue()).includes('from-file'); waited += 50) {
        assert.ok(waited < 5000, 'the file was read into the text area');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await page.getByRole('button', { name: 'Import' }).click();
      await page.getByRole('link', { name: 'from-file', exact: true }).waitFor();
      assert.deepEqual((await byName('from-file')).body.mapping, [{ tags: ['f'], cidr4: ['198.51.100.0/24'], cidr6: [] }]);
    });
  });

  test('at a phone\'s width the list and the editor fit the screen', { skip: noBrowser }, async () => {
    assert.ok(browser);
    const id = await create({ name: 'phone', mapping: [{ tags: ['one', 'two', 'three'], cidr4: ['192.0.2.0/24'], cidr6: ['2001:db8:ffff:ffff::/64'] }] });
    await inConsole(openConsole(browser, service.url, { width: 390 }), async ({ page }) => {
      const pageWidth = () => page.evaluate<number>('document.documentElement.scrollWidth');
      await visit(page, '/network-mappings', 'Network mappings');
      await page.getByRole('link', { name: 'phone', exact: true }).waitFor();
      assert.ok((await pageWidth()) <= 390, `list ${String(await pageWidth())} px wide`);
      await visit(page, `/network-mappings/${String(id)}`, 'phone');
      assert.ok((await pageWidth()) <= 390, `editor ${String(await pageWidth())} px wide`);
    });
    await inConsole(openConsole(browser, service.url), async (wide) => {
      await visit(wide.page, '/network-mappings', 'Network mappings');
      await wide.page.getByRole('link', { name: 'phone', exact: true }).waitFor();
      await screenshot(wide.page, 'network-mappings');
    });
  });
});
