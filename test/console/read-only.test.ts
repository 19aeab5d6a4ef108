// The console mirrors the API's roles: on every page an administrator finds controls that write
// (each marked data-write), a Read-only user finds none of them and no enabled Save, Delete or
// Create button — and the API refuses that user's writes (403) whatever the page shows.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertError } from '../support/assertions.ts';
import { inConsole, launchBrowser, noBrowser, openConsole, type ConsolePage } from '../support/console.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminAuth, createResource, startOrigin, type Origin } from '../support/proxy.ts';
import { startService, type Service } from '../support/service.ts';

const zone = 'readonly-console.example';
const owner = `www.${zone}`;
const address = '192.0.2.44';
const host = `shop.${zone}`;
const network = '198.51.100.0/24';
const reader = { email: 'reader@example.com', password: 'reader has a long password' };

/** Writes a Read-only user must not be offered. */
const writeButton = /^(save|delete|create|revoke|import|enable|disable)\b/i;
/** Controls of values the API stores (bound to a JSON path) that take input. */
const editableValues = 'main [data-field]:is(input, select, textarea):not(:disabled):not([readonly])';

interface View {
  name: string;
  path: string;
  /** document.title once the route has rendered. */
  title: string;
  /** Text in the page, or the value of one of its controls, once its data has loaded. */
  shows: string;
  /** An editor: shown to a Read-only user with its values' controls disabled. */
  editor?: boolean;
}

describe('web console: a Read-only user sees no write controls', () => {
  let service: Service;
  let origin: Origin;
  let browser: Browser | undefined;
  let views: View[];

  before(async () => {
    [service, origin] = await Promise.all([startService({ engine: 'sqlite' }), startOrigin('shop')]);
    const auth = await adminAuth(service);
    assert.equal((await call(service.url, 'POST', '/iam/users', { auth, body: { ...reader, role: { name: 'Read-only' } } })).status, 201);
    assert.equal((await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name: zone } })).status, 200);
    const rrset = await call(service.url, 'POST', `/dns/v2/zones/${zone}/${owner}/A`, { auth, body: { ttl: 300, resource_records: [{ content: [address] }] } });
    assert.equal(rrset.status, 200, rrset.text);
    const resource = await createResource(service, auth, { name: host, origins: [{ origin_data: origin.address }] });
    const mapping = await call(service.url, 'POST', '/dns/v2/network-mappings', { auth, body: { name: 'offices', mapping: [{ tags: ['office'], cidr4: [network] }] } });
    assert.equal(mapping.status, 200, mapping.text);
    views = [
      { name: 'zones list', path: '/zones', title: 'DNS zones', shows: zone },
      { name: 'zone page', path: `/zones/${zone}`, title: 'Zone', shows: address },
      { name: 'RRset editor', path: `/zones/${zone}/rrsets/${owner}/A`, title: 'Record set', shows: address, editor: true },
      { name: 'resources list', path: '/resources', title: 'Protected resources', shows: host },
      { name: 'resource page', path: `/resources/${String(resource.id)}`, title: 'Protected resource', shows: origin.address, editor: true },
      { name: 'network mappings list', path: '/network-mappings', title: 'Network mappings', shows: 'offices' },
      { name: 'network mapping page', path: `/network-mappings/${String(mapping.body.id)}`, title: 'Network mapping', shows: network, editor: true },
      { name: 'account page', path: '/account', title: 'Account', shows: reader.email },
    ];
    if (noBrowser === false) browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await Promise.all([service.dispose(), origin.close()]);
  });

  test('the API refuses the Read-only user\'s writes (403) and answers their reads', async () => {
    const auth = bearer((await login(service.url, reader.email, reader.password)).access);
    assert.equal((await call(service.url, 'GET', `/dns/v2/zones/${zone}`, { auth })).status, 200);
    assert.equal((await call(service.url, 'GET', '/security/resources', { auth })).status, 200);
    assertError(await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name: `other-${zone}` } }), 403, 'forbidden');
    assertError(await call(service.url, 'PUT', `/dns/v2/zones/${zone}/${owner}/A`, { auth, body: { ttl: 60, resource_records: [{ content: ['192.0.2.45'] }] } }), 403);
    assertError(await call(service.url, 'DELETE', `/dns/v2/zones/${zone}`, { auth }), 403);
    assertError(await call(service.url, 'POST', '/security/resources', { auth, body: { name: `blog.${zone}`, origins: [{ origin_data: origin.address }] } }), 403);
    assertError(await call(service.url, 'POST', '/dns/v2/network-mappings', { auth, body: { name: 'mine', mapping: [] } }), 403);
    const me = (await call(service.url, 'GET', '/iam/clients/me', { auth })).body;
    assertError(await call(service.url, 'POST', `/iam/v2/clients/${String(me.id)}/tokens`, { auth, body: { name: 'mine' } }), 403);
    // Nothing changed.
    const rrset = await call(service.url, 'GET', `/dns/v2/zones/${zone}/${owner}/A`, { auth });
    assert.deepEqual(rrset.body.resource_records.map((r: { content: string[] }) => r.content), [[address]]);
  });

  test('as the administrator, every page offers controls that write', { skip: noBrowser }, async (t) => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url), async (cp) => {
      for (const view of views) {
        await t.test(view.name, async () => {
          await show(cp.page, service.url, view);
          // A write control may come with data loaded after the page's first render.
          await cp.page.locator('main [data-write]').first().waitFor({ timeout: 5000 });
          assert.ok((await cp.page.locator('[data-write]').count()) > 0);
          if (view.editor === true) assert.ok((await cp.page.locator(editableValues).count()) > 0, 'its values can be changed');
        });
      }
    });
  });

  test('as a Read-only user, no page offers a control that writes', { skip: noBrowser }, async (t) => {
    assert.ok(browser);
    await inConsole(openConsole(browser, service.url, reader), async (cp) => {
      assert.equal(await cp.page.locator('.who .role').textContent(), 'Read-only');
      for (const view of views) await t.test(view.name, () => checkReadOnly(cp, view));
    });
  });

  async function checkReadOnly(cp: ConsolePage, view: View): Promise<void> {
    await show(cp.page, service.url, view);
    const marked = await cp.page.locator('[data-write]').evaluateAll((nodes) => nodes.map((n) => n.outerHTML.slice(0, 120)));
    assert.deepEqual(marked, [], `${view.name}: no [data-write] element`);
    const offered: string[] = [];
    for (const button of await cp.page.getByRole('button', { name: writeButton }).all()) {
      if (await button.isEnabled()) offered.push((await button.textContent()) ?? '');
    }
    assert.deepEqual(offered, [], `${view.name}: no enabled write button`);
    if (view.editor === true) {
      const editable = await cp.page
        .locator(editableValues)
        .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-field')));
      assert.deepEqual(editable, [], `${view.name}: every value's control is disabled`);
    }
  }
});

/**
 * Opens a route and waits until it has rendered (the router titles the document then) and its data
 * is there, then until the page has no API call in flight, so late sections are counted too.
 */
async function show(page: Page, base: string, view: View): Promise<void> {
  const pending = new Set<unknown>();
  const started = (request: unknown) => pending.add(request);
  const ended = (request: unknown) => pending.delete(request);
  page.on('request', started);
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  try {
    await page.goto(`${base}/console/#${view.path}`);
    // Polled from here: waitForFunction's polling evaluates code the page's CSP forbids.
    const rendered = `${view.title} · edgeplane`;
    for (let waited = 0; !(await ready(page, rendered, view.shows)); waited += 100) {
      assert.ok(waited < 10_000, `${view.path} did not show ${view.shows}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (let quiet = 0; quiet < 3; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      quiet = pending.size === 0 ? quiet + 1 : 0;
    }
  } finally {
    page.off('request', started);
    page.off('requestfinished', ended);
    page.off('requestfailed', ended);
  }
}

/** The route titled `title` has rendered and shows `text`, as text or as a control's value. */
async function ready(page: Page, title: string, text: string): Promise<boolean> {
  if ((await page.title()) !== title) return false;
  return page.locator('main').evaluate((main, shows) => {
    if (main.hasAttribute('aria-busy')) return false;
    if ((main.textContent ?? '').includes(shows)) return true;
    return [...main.querySelectorAll('input, textarea, select')].some((control) => (control as unknown as { value: string }).value.includes(shows));
  }, text);
}
