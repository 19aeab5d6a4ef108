// The account page in chromium against the real service: an API token's secret is shown once, works
// as an API key and stops working when revoked in the page; users are added (with the API's
// validation messages beside their fields) and deleted; a Users-role user gets no administrator's
// controls; the operators' administrator creates an account. Each result is checked through the API.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertError } from '../support/assertions.ts';
import { inConsole, launchBrowser, noBrowser, openConsole, screenshot } from '../support/console.ts';
import { apiKey, bearer, call, login } from '../support/http.ts';
import { adminEmail, startService, type Service } from '../support/service.ts';

describe('web console: account, tokens and users', () => {
  let service: Service;
  let browser: Browser | undefined;
  let admin: string;
  let accountId: number;

  before(async () => {
    service = await startService({ engine: 'sqlite' });
    admin = bearer((await login(service.url, adminEmail, 'correct horse battery')).access);
    accountId = (await call(service.url, 'GET', '/iam/clients/me', { auth: admin })).body.id;
    if (noBrowser === false) browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service.dispose();
  });

  async function openAccount(page: Page): Promise<void> {
    await page.getByRole('link', { name: 'Account', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
  }

  test('a token\'s secret is shown once, works as an API key, and stops working when revoked', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url), async (cp) => {
      const { page } = cp;
      await cp.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.url });
      await openAccount(page);
      const form = page.getByRole('form', { name: 'Create a token' });
      // An administrator may hand out any role.
      assert.deepEqual(await form.getByLabel('Role').locator('option').allTextContents(), ['Administrators', 'Users', 'Read-only']);
      await form.getByLabel('Token name').fill('ci deploy');
      await form.getByLabel('Description').fill('the pipeline');
      await form.getByLabel('Role').selectOption('Users');
      const nextYear = new Date(Date.now() + 365 * 86_400_000);
      const day = `${String(nextYear.getFullYear())}-${String(nextYear.getMonth() + 1).padStart(2, '0')}-${String(nextYear.getDate()).padStart(2, '0')}`;
      await form.getByLabel('Expires').fill(day);
      await form.getByRole('button', { name: 'Create token' }).click();

      const box = page.locator('.secret');
      await box.getByText('you will not see it again').waitFor();
      const secret = (await page.getByLabel('Secret of the token ci deploy', { exact: true }).textContent()) ?? '';
      assert.match(secret, /^\d+_[A-Za-z0-9_-]{20,}$/);
      const row = page.getByRole('row').filter({ hasText: 'ci deploy' });
      await row.waitFor();
      assert.match((await row.textContent()) ?? '', /Users.*admin@example\.com/);
      await screenshot(page, 'account');
      await box.getByRole('button', { name: 'Copy' }).click();
      await page.getByText('Secret of the token ci deploy copied to the clipboard').waitFor();
      assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), secret);

      // The secret is an API key with the role chosen, and the API holds what the form said.
      const zones = await call(service.url, 'GET', '/dns/v2/zones', { auth: apiKey(secret) });
      assert.equal(zones.status, 200, zones.text);
      assertError(await call(service.url, 'GET', '/iam/users', { auth: 'APIKey not-a-token' }), 401);
      const tokens = (await call(service.url, 'GET', `/iam/v2/clients/${String(accountId)}/tokens`, { auth: admin })).body as any[];
      const stored = tokens.find((t) => t.name === 'ci deploy');
      assert.equal(stored.description, 'the pipeline');
      assert.equal(stored.client_user.role.name, 'Users');
      assert.ok(stored.exp_date !== null, 'the token expires');
      // The end of the chosen day in the browser's time zone (the test's own).
      assert.equal(new Date(stored.exp_date).getTime(), new Date(`${day}T23:59:59`).getTime());

      await page.getByRole('button', { name: 'Revoke ci deploy' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('Revoke the token “ci deploy”?').waitFor();
      await dialog.getByRole('button', { name: 'Revoke' }).click();
      await row.waitFor({ state: 'detached' });
      assertError(await call(service.url, 'GET', '/dns/v2/zones', { auth: apiKey(secret) }), 401);

      // Nothing keeps the secret: not the page after a reload, not the tab's storage.
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
      await page.getByRole('form', { name: 'Create a token' }).waitFor();
      assert.equal(await page.locator('.secret').count(), 0);
      assert.ok(!(await page.content()).includes(secret), 'the secret is nowhere in the page');
      const stores = await page.evaluate<string>('JSON.stringify([Object.entries(sessionStorage), Object.entries(localStorage)])');
      // The random part may itself hold '_', so everything after the id's separator.
      const secretPart = secret.slice(secret.indexOf('_') + 1);
      assert.ok(!stores.includes(secretPart) && !page.url().includes(secretPart), 'the secret is in no storage nor the address');
    });
  });

  test('adding a user shows the API\'s validation beside its field; the user signs in; deleting them ends it', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      const email = 'dana@example.com';
      const password = 'dana has a long password';
      await openAccount(page);
      // The signed-in administrator cannot delete themselves.
      const own = page.getByRole('row').filter({ hasText: adminEmail });
      await own.waitFor();
      assert.equal(await own.getByRole('button').count(), 0);

      const form = page.getByRole('form', { name: 'Add a user' });
      await form.getByLabel('E-mail').fill(email);
      await form.getByLabel('Name', { exact: true }).fill('Dana');
      await form.getByLabel('Password').fill('short');
      await form.getByLabel('Role').selectOption('Users');
      await form.getByRole('button', { name: 'Add user' }).click();
      const passwordError = form.locator('[data-error-for="password"]');
      await passwordError.filter({ hasText: /fewer than 8 characters/ }).waitFor();
      assert.equal(await form.getByLabel('Password').getAttribute('aria-invalid'), 'true');
      assert.equal(await form.getByLabel('E-mail').inputValue(), email, 'nothing typed is lost');
      assert.ok(!(await listedEmails()).includes(email), 'the API added no one');

      await form.getByLabel('Password').fill(password);
      await form.getByRole('button', { name: 'Add user' }).click();
      const row = page.getByRole('row').filter({ hasText: email });
      await row.waitFor();
      assert.match((await row.textContent()) ?? '', /Dana.*Users/);
      assert.equal(await form.getByLabel('Role').inputValue(), 'Users', 'the form is ready for the next user, with the default role');
      const session = await login(service.url, email, password);
      const me = await call(service.url, 'GET', '/iam/clients/me', { auth: bearer(session.access) });
      assert.equal(me.status, 200);
      assert.equal(me.body.users.find((u: { id: number }) => u.id === me.body.currentUser).groups[0].name, 'Users');

      // The same address again: the API's 409 lands beside the e-mail field.
      await form.getByLabel('E-mail').fill(email);
      await form.getByLabel('Password').fill(password);
      await form.getByRole('button', { name: 'Add user' }).click();
      await form.locator('[data-error-for="email"]').filter({ hasText: 'a user with this e-mail address already exists' }).waitFor();
      assert.equal(await form.getByLabel('E-mail').getAttribute('aria-invalid'), 'true');

      await row.getByRole('button', { name: `Delete ${email}` }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText(`Delete the user ${email}?`).waitFor();
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await row.waitFor({ state: 'detached' });
      assert.ok(!(await listedEmails()).includes(email), 'the API lists them no more');
      assertError(await call(service.url, 'GET', '/iam/clients/me', { auth: bearer(session.access) }), 401);
    });
  });

  test('a Users-role user sees the users without controls and hands out no role above theirs (phone width)', { skip: noBrowser }, async () => {
    assert.ok(browser);
    const email = 'uma@example.com';
    const password = 'uma has a long password';
    assert.equal((await call(service.url, 'POST', '/iam/users', { auth: admin, body: { email, password, role: { name: 'Users' } } })).status, 201);
    await inConsole(openConsole(browser, service.url, { email, password, width: 390 }), async ({ page }) => {
      await openAccount(page);
      const form = page.getByRole('form', { name: 'Create a token' });
      assert.deepEqual(await form.getByLabel('Role').locator('option').allTextContents(), ['Users', 'Read-only']);
      const own = page.locator('tr[aria-current="true"] th');
      assert.match((await own.textContent()) ?? '', /^Users/);
      assert.equal(await page.locator('dl.facts').getByText(email).count(), 1);
      await page.getByRole('row').filter({ hasText: adminEmail }).waitFor();
      assert.equal(await page.getByRole('form', { name: 'Add a user' }).count(), 0);
      assert.equal(await page.locator('table.users button').count(), 0);
      assert.equal(await page.getByRole('heading', { name: 'New account' }).count(), 0);

      // Their token works with the role they chose, below their own.
      await form.getByLabel('Token name').fill('reader');
      await form.getByLabel('Role').selectOption('Read-only');
      await form.getByRole('button', { name: 'Create token' }).click();
      const secret = (await page.getByLabel('Secret of the token reader', { exact: true }).textContent()) ?? '';
      assert.equal((await call(service.url, 'GET', '/dns/v2/zones', { auth: apiKey(secret) })).status, 200);
      assertError(await call(service.url, 'POST', '/dns/v2/zones', { auth: apiKey(secret), body: { name: 'uma.example' } }), 403);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      assert.ok(overflow <= 0, `no sideways scrolling (${String(overflow)} px too wide)`);
    });
  });

  test('the operators\' administrator creates an account, whose administrator then signs in', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await openAccount(page);
      const form = page.getByRole('form', { name: 'New account' });
      await form.getByLabel('Account name').fill('Acme');
      await form.getByLabel('Administrator\'s e-mail').fill('boss@acme.example');
      await form.getByLabel('Administrator\'s password').fill('acme has a long password');
      await form.getByRole('button', { name: 'Create account' }).click();
      await page.getByText(/Account “Acme” \(id \d+\) created\. Its administrator signs in as boss@acme\.example\./).waitFor();
      const session = await login(service.url, 'boss@acme.example', 'acme has a long password');
      const account = (await call(service.url, 'GET', '/iam/clients/me', { auth: bearer(session.access) })).body;
      assert.equal(account.name, 'Acme');
      assert.equal(account.operator, false);
      assert.notEqual(account.id, accountId);
    });
  });

  async function listedEmails(): Promise<string[]> {
    const users = await call<{ email: string }[]>(service.url, 'GET', '/iam/users', { auth: admin });
    return users.body.map((u) => u.email);
  }
});
