// The console's frame through the real service in chromium: how it is served (redirect, CSP, no
// outside resources), signing in and out, a throttled sign-in, a reload keeping the session, and a
// phone's width.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { assertError } from '../support/assertions.ts';
import { inConsole, launchBrowser, noBrowser, openConsole, screenshot } from '../support/console.ts';
import { bearer, call } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

describe('web console: serving and sessions', () => {
  let service: Service;
  let browser: Browser | undefined;

  before(async () => {
    service = await startService({ engine: 'sqlite' });
    if (noBrowser === false) browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service.dispose();
  });

  test('/ leads to the console, served under a strict Content Security Policy with nothing from elsewhere', async () => {
    const root = await fetch(`${service.url}/`, { redirect: 'manual' });
    assert.equal(root.status, 302);
    assert.equal(root.headers.get('location'), '/console/');
    const page = await call(service.url, 'GET', '/console/');
    assert.equal(page.status, 200);
    const csp = page.headers.get('content-security-policy') ?? '';
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "connect-src 'self'"]) {
      assert.ok(csp.includes(directive), `CSP has ${directive}: ${csp}`);
    }
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    // Offline: no script, style, font or image is fetched from another origin.
    assert.doesNotMatch(page.text, /(src|href)="(https?:)?\/\//);
    const script = await call(service.url, 'GET', '/console/console.js');
    assert.match(script.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.doesNotMatch(script.text, /https:\/\/fonts\.|cdn\./);
    // Sent compressed to browsers that take it, and not again while it is the same.
    assert.equal(script.headers.get('content-encoding'), 'gzip');
    const etag = script.headers.get('etag') ?? '';
    assert.equal((await call(service.url, 'GET', '/console/console.js', { headers: { 'if-none-match': etag } })).status, 304);
    const styles = await call(service.url, 'GET', '/console/console.css');
    assert.match(styles.headers.get('content-type') ?? '', /^text\/css/);
    assert.doesNotMatch(styles.text, /@import|url\(["']?https?:/);
  });

  test('a wrong password says so; signing in shows who is signed in, with which role', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url, { signIn: false }), async (cp) => {
      await screenshot(cp.page, 'sign-in');
      await cp.page.getByLabel('E-mail').fill(adminEmail);
      await cp.page.getByLabel('Password').fill('not the password');
      await cp.page.getByRole('button', { name: 'Sign in' }).click();
      await cp.page.getByRole('alert').filter({ hasText: 'Wrong e-mail or password.' }).waitFor();
      await cp.page.getByLabel('Password').fill(adminPassword);
      await cp.page.getByRole('button', { name: 'Sign in' }).click();
      await cp.page.getByRole('button', { name: 'Sign out' }).waitFor();
      assert.equal(await cp.page.locator('.who .role').textContent(), 'Administrators');
      assert.equal(await cp.page.locator('.who-email').textContent(), adminEmail);
    });
  });

  test('a throttled sign-in (429) tells the user to wait rather than blaming the password', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url, { signIn: false }), async (cp) => {
      const username = 'throttled@example.com';
      await cp.page.getByLabel('E-mail').fill(username);
      await cp.page.getByLabel('Password').fill('irrelevant1');
      // Five logins a second per username: the test spends them, then the page asks within that second.
      let shown = '';
      for (let attempt = 0; attempt < 5 && !shown.includes('Too many'); attempt += 1) {
        await Promise.all(Array.from({ length: 6 }, () => call(service.url, 'POST', '/iam/auth/jwt/login', { body: { username, password: 'irrelevant1' } })));
        await cp.page.getByRole('button', { name: 'Sign in' }).click();
        await cp.page.locator('.form-error:not(:empty)').waitFor();
        shown = (await cp.page.locator('.form-error').textContent()) ?? '';
      }
      assert.match(shown, /^Too many sign-in attempts\. Wait \d+ s and try again\.$/);
    });
  });

  test('a reload keeps the session; signing out ends it on the server too', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url), async (cp) => {
      const accessTokens: string[] = [];
      cp.page.on('request', (request) => {
        const auth = request.headers()['authorization'];
        if (auth !== undefined) accessTokens.push(auth);
      });
      await cp.page.reload();
      await cp.page.getByRole('button', { name: 'Sign out' }).waitFor();
      await cp.page.getByRole('heading', { level: 1 }).waitFor();
      const access = accessTokens.at(-1);
      assert.ok(access !== undefined, 'the reloaded page called the API with a token');
      const refresh = await cp.page.evaluate<string | null>("sessionStorage.getItem('edgeplane.refresh')");
      assert.ok(refresh !== null);
      assert.equal((await call(service.url, 'GET', '/iam/clients/me', { auth: access })).status, 200);

      await cp.page.getByRole('button', { name: 'Sign out' }).click();
      await cp.page.getByRole('button', { name: 'Sign in' }).waitFor();
      assert.equal(await cp.page.evaluate<string | null>("sessionStorage.getItem('edgeplane.refresh')"), null);
      // The tokens the page held are dead everywhere, not only forgotten by the page.
      await waitFor401(service.url, access);
      assertError(await call(service.url, 'POST', '/iam/auth/jwt/refresh', { body: { refresh } }), 401);
      await cp.page.reload();
      await cp.page.getByRole('button', { name: 'Sign in' }).waitFor();
    });
  });

  test('at a phone\'s width the navigation wraps and nothing scrolls sideways', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url, { width: 390 }), async (cp) => {
      for (const name of ['Dashboard', 'DNS zones', 'Protected resources', 'Account']) {
        assert.ok(await cp.page.getByRole('link', { name, exact: true }).isVisible(), `${name} is reachable`);
      }
      const overflow = await cp.page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      assert.ok(overflow <= 0, `no sideways scrolling (${String(overflow)} px too wide)`);
      // Keyboard: the skip link is the document's first stop, and leads past the navigation.
      assert.equal(await cp.page.evaluate<string>("document.querySelector('a[href], button, input, select, textarea')?.textContent"), 'Skip to content');
      await cp.page.getByRole('link', { name: 'Skip to content' }).focus();
      await cp.page.keyboard.press('Enter');
      assert.equal(await cp.page.evaluate<string>('document.activeElement?.id'), 'main');
    });
  });
});

/** The logout request is not awaited by the page before it shows the sign-in form. */
async function waitFor401(url: string, auth: string): Promise<void> {
  for (let i = 0; i < 50; i += 1) {
    if ((await call(url, 'GET', '/iam/clients/me', { auth })).status === 401) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`the access token still works after sign-out (${bearer('…')})`);
}
