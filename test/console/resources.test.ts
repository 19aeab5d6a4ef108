// The protected resources pages in chromium against the real service (API and proxy): a resource
// made in the editor serves its alias through the proxy; a blacklist typed in the editor refuses
// loopback; the API's validation messages land beside the row and line they name and nothing is
// saved; a certificate read from a file is stored and its expiry shown, never its key; the traffic
// chart after requests through the proxy; delete with confirmation; a Read-only user sees no write
// control; a phone's width.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { inConsole, launchBrowser, noBrowser, openConsole, screenshot } from '../support/console.ts';
import { pemBodyLines, selfSignedCertificate } from '../support/certificates.ts';
import { call } from '../support/http.ts';
import { adminAuth, ask, createResource, startOrigin, type Origin } from '../support/proxy.ts';
import { startService, type Service } from '../support/service.ts';
import { eventually } from '../support/wait.ts';

/** As the console shows a UNIX time. */
const utcTime = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

describe('web console: protected resources', () => {
  let service: Service;
  let origin: Origin;
  let auth: string;
  let browser: Browser | undefined;

  before(async () => {
    // The proxy writes its request counts every second, for the traffic chart.
    [service, origin] = await Promise.all([startService({ engine: 'sqlite', env: { EDGEPLANE_STATS_FLUSH: '1' } }), startOrigin('A')]);
    auth = await adminAuth(service);
    if (noBrowser === false) browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await Promise.all([service.dispose(), origin.close()]);
  });

  const resource = async (id: number) => call(service.url, 'GET', `/security/resources/${String(id)}`, { auth });
  const open = async (page: Page, path: string) => {
    await page.goto(`${service.url}/console/#${path}`);
    await page.locator('main:not([aria-busy])').waitFor();
  };

  test('a resource created in the editor serves its alias through the proxy', { skip: noBrowser }, async () => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await open(page, '/resources');
      await page.getByRole('link', { name: 'New resource' }).click();
      await page.getByRole('heading', { level: 1, name: 'New protected resource' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('shop.example');
      await page.getByRole('button', { name: 'Add alias' }).click();
      await page.getByLabel('Alias 1', { exact: true }).fill('www.shop.example');
      const first = page.getByRole('group', { name: 'Origin 1' });
      await first.getByLabel('Address').fill(origin.address);
      await first.getByLabel('Weight').fill('5');
      await page.getByRole('button', { name: 'Create resource' }).click();
      await page.getByRole('heading', { level: 1, name: 'shop.example' }).waitFor();
      const id = Number(/#\/resources\/(\d+)$/.exec(page.url())?.[1]);

      const stored = (await resource(id)).body;
      assert.equal(stored.name, 'shop.example');
      assert.deepEqual(stored.aliases.map((a: { alias_data: string }) => a.alias_data), ['www.shop.example']);
      assert.deepEqual(stored.origins.map((o: object) => ({ ...o, id: undefined, origin_id: undefined })), [
        { id: undefined, origin_id: undefined, origin_data: origin.address, origin_weight: 5, origin_mode: 'primary' },
      ]);
      // Defaults the form sent back as the API has them.
      assert.equal(stored.service_http2, 1);
      assert.equal(stored.service_enable, 1);
      assert.equal(stored.ssl_type, null);

      const answer = await ask(service, 'www.shop.example', '/hello');
      assert.equal(answer.status, 200);
      assert.equal(answer.body, 'A');
      assert.equal(origin.seen.at(-1)?.url, '/hello');
    });
  });

  test('a blacklist entry typed in the editor makes the proxy refuse loopback', { skip: noBrowser }, async () => {
    assert.ok(browser);
    const { id } = await createResource(service, auth, { name: 'edit.example', origins: [{ origin_data: origin.address }] });
    assert.equal((await ask(service, 'edit.example')).status, 200);
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await open(page, `/resources/${String(id)}`);
      await page.getByLabel('Blacklist').fill('127.0.0.0/8');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').getByText('Resource saved').waitFor();
      // The page shows what the API stored.
      assert.equal(await page.getByLabel('Blacklist').inputValue(), '127.0.0.0/8');

      const stored = (await resource(id)).body;
      assert.deepEqual(stored.blacklists.map((b: { blacklist_data: string }) => b.blacklist_data), ['127.0.0.0/8']);
      // Nothing else changed with it.
      assert.equal(stored.origins[0].origin_data, origin.address);
      const refused = await eventually(async () => {
        const answer = await ask(service, 'edit.example', '/', { localAddress: '127.0.0.5' });
        return answer.status === 403 ? answer : undefined;
      });
      assert.equal(refused.status, 403);
    });
  });

  test("the API's messages show beside the origin, alias, rate rule and list line they name, and nothing is saved", { skip: noBrowser }, async () => {
    assert.ok(browser);
    const { id } = await createResource(service, auth, { name: 'bad.example', origins: [{ origin_data: origin.address }] });
    const before = (await resource(id)).body;
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await open(page, `/resources/${String(id)}`);
      await page.getByRole('button', { name: 'Add origin' }).click();
      const second = page.getByRole('group', { name: 'Origin 2' });
      await second.getByLabel('Address').fill('999.1.1.1');
      await page.getByRole('button', { name: 'Add alias' }).click();
      await page.getByLabel('Alias 1', { exact: true }).fill('bad.example');
      await page.getByLabel('Blacklist').fill('10.0.0.0/8\nnot-an-address');
      await page.getByRole('button', { name: 'Add rate rule' }).click();
      const rule = page.getByRole('group', { name: 'Rate rule 1' });
      await rule.getByLabel('Requests per second').fill('200000');
      await page.getByRole('button', { name: 'Save changes' }).click();

      await second.getByText('is neither an IP address nor a host name').waitFor();
      assert.equal(await second.getByLabel('Address').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.getByRole('group', { name: 'Origin 1' }).locator('.field-error:not(:empty)').count(), 0, 'the good origin has no message');
      await page.locator('.alias-row').getByText('repeats the name or another alias').waitFor();
      await page.getByText('line 2 (not-an-address): must be an IP address or a CIDR').waitFor();
      await rule.getByText('must be an integer 0-100000').waitFor();
      await page.getByRole('alert').filter({ hasText: 'invalid resource' }).waitFor();
      // What was typed stays for the user to fix.
      assert.equal(await second.getByLabel('Address').inputValue(), '999.1.1.1');

      // Removing a row renumbers the rest: the fixed form saves.
      await page.getByRole('button', { name: 'Remove origin 2' }).click();
      await page.getByRole('button', { name: 'Remove alias 1' }).click();
      await rule.getByLabel('Requests per second').fill('20');
      await page.getByLabel('Blacklist').fill('10.0.0.0/8');
      const after = (await resource(id)).body;
      assert.deepEqual(after, before, 'the refused save changed nothing');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').getByText('Resource saved').waitFor();
      const saved = (await resource(id)).body;
      assert.deepEqual(saved.blacklists.map((b: { blacklist_data: string }) => b.blacklist_data), ['10.0.0.0/8']);
      assert.deepEqual(saved.rate_limier_rules, [{ method: '*', path: '/*', value: 20, test_cookie: false }]);
      assert.equal(saved.origins.length, 1);
      assert.equal(saved.aliases.length, 0);
    });
  });

  test('a certificate read from a file is stored: the page shows its expiry and never the key', { skip: noBrowser }, async () => {
    assert.ok(browser);
    const pair = selfSignedCertificate('tls.example', { sans: ['tls.example', 'www.tls.example'] });
    const { id } = await createResource(service, auth, {
      name: 'tls.example',
      aliases: [{ alias_data: 'www.tls.example' }, { alias_data: 'api.tls.example' }],
      origins: [{ origin_data: origin.address }, { origin_data: '192.0.2.10:8080', origin_weight: 3, origin_mode: 'backup' }],
      rate_limier_rules: [{ method: 'POST', path: '/login', value: 5, test_cookie: true }],
      // Loopback skips the bot challenge, so the HTTPS check below reaches the origin.
      whitelists: [{ whitelist_data: '127.0.0.1' }],
      is_waf_enabled: true,
      service_botprotect: 4,
      service_geoip_mode: 1,
      service_geoip_list: 'KP,RU',
    });
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await open(page, `/resources/${String(id)}`);
      await page.getByLabel('HTTPS certificate').selectOption('custom');
      await page.getByLabel('Certificate file').setInputFiles({ name: 'tls.crt', mimeType: 'application/x-pem-file', buffer: Buffer.from(pair.crt) });
      const chain = page.getByLabel('Certificate chain (PEM)');
      await eventually(async () => ((await chain.inputValue()).includes('BEGIN CERTIFICATE') ? true : undefined));
      await page.getByLabel('Private key (PEM)').fill(pair.key);
      await page.getByLabel('Redirect HTTP to HTTPS').check();
      await page.getByLabel('HSTS').check();
      // The test origin speaks plain HTTP only.
      await page.getByLabel('Plain HTTP to the origins').check();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').getByText('Resource saved').waitFor();

      const stored = (await resource(id)).body;
      const notAfter = Math.floor(new Date(new X509Certificate(pair.crt).validTo).getTime() / 1000);
      assert.equal(stored.ssl_type, 'custom');
      assert.equal(stored.service_ssl_expire, notAfter);
      assert.equal(stored.is_redirect_to_https_enabled, true);
      assert.equal(stored.service_hsts, 1);
      assert.equal(stored.service_https2http, 1);
      // The rest of the document went back unchanged.
      assert.equal(stored.service_botprotect, 4);
      assert.equal(stored.is_waf_enabled, true);
      assert.equal(stored.service_geoip_list, 'KP,RU');
      assert.deepEqual(stored.rate_limier_rules, [{ method: 'POST', path: '/login', value: 5, test_cookie: true }]);
      assert.equal(stored.origins[1].origin_mode, 'backup');

      const expiry = page.locator('.certificate-expiry');
      await expiry.getByText(utcTime(notAfter)).waitFor();
      assert.equal(await page.locator('.facts').filter({ hasText: 'Covers' }).locator('dd').nth(2).textContent(), 'tls.example, www.tls.example');
      let shown = await page.content();
      for (const area of await page.locator('textarea').all()) shown += await area.inputValue();
      for (const line of pemBodyLines(pair.key)) assert.ok(!shown.includes(line), 'no line of the private key is in the page');

      // The proxy answers HTTPS with it, with HSTS.
      const secure = await ask(service, 'tls.example', '/', { tls: { ca: pair.crt }, localAddress: '127.0.0.1' });
      assert.equal(secure.status, 200);
      assert.match(String(secure.headers['strict-transport-security']), /max-age=\d+/);
      await screenshot(page, 'resource');
    });
  });

  test('the traffic view charts the requests the proxy counted, by outcome', { skip: noBrowser }, async () => {
    assert.ok(browser);
    const { id } = await createResource(service, auth, { name: 'traffic.example', origins: [{ origin_data: origin.address }], blacklists: [{ blacklist_data: '127.0.0.9' }] });
    for (let i = 0; i < 4; i++) assert.equal((await ask(service, 'traffic.example', '/', { localAddress: '127.0.0.1' })).status, 200);
    for (let i = 0; i < 2; i++) assert.equal((await ask(service, 'traffic.example', '/', { localAddress: '127.0.0.9' })).status, 403);
    const now = Math.floor(Date.now() / 1000);
    await eventually(async () => {
      const stats = await call(service.url, 'GET', `/security/resources/${String(id)}/statistics?from=${String(now - 3600)}&to=${String(now + 60)}&granularity=1m`, { auth });
      return stats.body.total >= 6 ? true : undefined;
    });
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await open(page, `/resources/${String(id)}`);
      await page.getByRole('link', { name: 'Traffic' }).click();
      await page.getByLabel('Range').selectOption({ label: 'Last hour' });
      await page.getByText('6 requests in this range.').waitFor();
      await page.locator('figcaption').filter({ hasText: 'Requests over time — Requests: 6' }).waitFor();
      await page.locator('figcaption').filter({ hasText: 'Outcomes — passed: 4, blacklist: 2' }).waitFor();
      assert.equal(await page.locator('.chart canvas').count() >= 2, true, 'both charts are drawn');
      const blacklisted = page.getByRole('row').filter({ hasText: 'blacklist' });
      assert.deepEqual(await blacklisted.getByRole('cell').allTextContents(), ['blacklist', '2', '33.3 %']);
      await screenshot(page, 'resource-traffic');
    });
  });

  test('delete asks first, then the resource is gone from the page and the API', { skip: noBrowser }, async () => {
    assert.ok(browser);
    const { id } = await createResource(service, auth, { name: 'gone.example', origins: [{ origin_data: origin.address }], is_waf_enabled: true, service_geoip_mode: 2, service_geoip_list: 'DE,FR' });
    await inConsole(openConsole(browser, service.url), async ({ page }) => {
      await open(page, '/resources');
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'gone.example' }) });
      assert.deepEqual(await row.locator('.tag').allTextContents(), ['WAF', 'geo: only 2']);
      await screenshot(page, 'resources');

      await row.getByRole('button', { name: 'Delete gone.example' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await resource(id)).status, 200, 'cancelled: still there');
      await row.getByRole('button', { name: 'Delete gone.example' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('link', { name: 'gone.example' }).waitFor({ state: 'detached' });
      assert.equal((await resource(id)).status, 404);
    });
  });

  test('a Read-only user reads every setting with no write control; a phone gets no sideways scroll', { skip: noBrowser }, async () => {
    assert.ok(browser);
    const { id } = await createResource(service, auth, { name: 'read.example', aliases: [{ alias_data: 'www.read.example' }], origins: [{ origin_data: origin.address }] });
    const created = await call(service.url, 'POST', '/iam/users', { auth, body: { email: 'reader@example.com', password: 'reader password 1', role: { name: 'Read-only' } } });
    assert.equal(created.status, 201, created.text);
    await inConsole(openConsole(browser, service.url, { email: 'reader@example.com', password: 'reader password 1', width: 390 }), async ({ page }) => {
      // A string: the test's TypeScript has no DOM types.
      const noSidewaysScroll = async () => assert.equal(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), true, 'no horizontal scroll');
      await open(page, '/resources');
      await page.getByRole('link', { name: 'read.example' }).waitFor();
      assert.equal(await page.locator('[data-write]').count(), 0);
      await noSidewaysScroll();

      await page.getByRole('link', { name: 'read.example' }).click();
      await page.getByRole('heading', { level: 1, name: 'read.example' }).waitFor();
      assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'read.example');
      assert.equal(await page.getByLabel('Alias 1', { exact: true }).inputValue(), 'www.read.example');
      assert.ok(await page.getByLabel('Name', { exact: true }).isDisabled());
      assert.ok(await page.getByRole('group', { name: 'Origin 1' }).getByLabel('Address').isDisabled());
      assert.equal(await page.locator('[data-write]').count(), 0);
      assert.equal(await page.getByRole('button', { name: /Save|Delete|Add|Remove/ }).count(), 0);
      await noSidewaysScroll();

      await open(page, '/resources/new');
      await page.getByText('Your role can read resources but not create them.').waitFor();
      assert.equal(await page.locator('form').count(), 0);
      assert.equal((await resource(id)).status, 200);
    });
  });
});
