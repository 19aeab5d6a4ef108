// Bot protection through the real service, on resources made through the API: Debian's chromium,
// driven headless by playwright-core, reaches the origin's page with nobody clicking anything;
// plain HTTP clients get the challenge and never the origin's content, unless the path is exempt
// or the resource's protection is off; the outcomes are counted in /metrics.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { call } from '../support/http.ts';
import { adminAuth, ask, createResource, startOrigin, type Origin } from '../support/proxy.ts';
import { metricValue } from '../support/proxy-edge.ts';
import { startService, type Service } from '../support/service.ts';

const chromiumPath = '/usr/bin/chromium';
const noBrowser = existsSync(chromiumPath) ? false : `${chromiumPath} is missing (Debian package chromium): the headless browser tests are SKIPPED`;
if (noBrowser !== false) process.stderr.write(`\n*** ${noBrowser} ***\n\n`);

const welcome = '<!doctype html><title>shop</title><h1 id="welcome">Welcome to the shop</h1>';

describe('bot protection (service_botprotect)', () => {
  let service: Service;
  let origin: Origin;
  let protectedId: number;
  let browser: Browser | undefined;

  before(async () => {
    [service, origin] = await Promise.all([
      startService({ engine: 'sqlite' }),
      startOrigin('shop', (req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(welcome);
      }),
    ]);
    const auth = await adminAuth(service);
    protectedId = (await createResource(service, auth, { name: 'bot.example', origins: [{ origin_data: origin.address }], service_botprotect: 4 })).id;
    await createResource(service, auth, { name: 'open.example', origins: [{ origin_data: origin.address }], service_botprotect: 0 });
    if (noBrowser === false) {
      browser = await chromium.launch({
        executablePath: chromiumPath,
        // As root chromium needs --no-sandbox; the resources' names lead to the proxy on loopback.
        args: ['--no-sandbox', '--host-resolver-rules=MAP bot.example 127.0.0.1, MAP open.example 127.0.0.1'],
        timeout: 30_000,
      });
    }
  });
  after(async () => {
    await browser?.close();
    await Promise.all([service.dispose(), origin.close()]);
  });

  test('a headless browser reaches the origin without a person, and keeps its clearance', { skip: noBrowser }, async () => {
    assert.ok(browser !== undefined);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const seenBefore = origin.seen.length;
      const first = await page.goto(`http://bot.example:${String(service.proxyHttpPort)}/welcome?from=test`);
      assert.equal(first?.status(), 403, 'the first answer is the challenge');
      await page.waitForSelector('#welcome', { timeout: 15_000 });
      assert.equal(page.url(), `http://bot.example:${String(service.proxyHttpPort)}/welcome?from=test`, 'back where it was going');
      // The page, then what the browser asks for by itself (its favicon), all after the check.
      const seen = origin.seen.slice(seenBefore);
      assert.equal(seen[0]?.url, '/welcome?from=test');
      for (const request of seen) assert.match(request.headers.cookie ?? '', /^edgeplane_bot=\d+\.[\w-]{43}$/, request.url);
      const [cookie] = (await context.cookies()).filter((c) => c.name === 'edgeplane_bot');
      assert.ok(cookie !== undefined);
      assert.deepEqual([cookie.httpOnly, cookie.sameSite, cookie.path, cookie.secure], [true, 'Lax', '/', false]);
      assert.ok(cookie.expires > Date.now() / 1000 + 3500 && cookie.expires <= Date.now() / 1000 + 3600);

      const again = await page.goto(`http://bot.example:${String(service.proxyHttpPort)}/other`);
      assert.equal(again?.status(), 200, 'cleared: straight to the origin');
      assert.equal(await page.textContent('#welcome'), 'Welcome to the shop');

      const text = (await call(service.url, 'GET', '/metrics')).text;
      assert.ok(metricValue(text, `edgeplane_proxy_requests_total{resource="${String(protectedId)}",outcome="bot_challenge"}`) >= 1);
      assert.equal(metricValue(text, `edgeplane_proxy_requests_total{resource="${String(protectedId)}",outcome="bot_verified"}`), 1);
    } finally {
      await context.close();
    }
  });

  test('plain HTTP clients get the challenge, never the origin; exempt paths and unprotected resources pass', async () => {
    const seenBefore = origin.seen.length;
    for (const [method, headers] of [
      ['GET', {}],
      ['GET', { accept: '*/*', 'user-agent': 'curl/8.5.0' }],
      ['GET', { accept: 'application/json' }],
      ['HEAD', {}],
      ['POST', { 'content-type': 'application/x-www-form-urlencoded' }],
    ] as const) {
      const answer = await ask(service, 'bot.example', '/welcome', { method, headers, ...(method === 'POST' ? { body: 'a=1' } : {}) });
      assert.equal(answer.status, 403, `${method} ${JSON.stringify(headers)}`);
      assert.equal(answer.headers['cache-control'], 'no-store');
      assert.doesNotMatch(answer.body, /Welcome to the shop/);
    }
    const page = await ask(service, 'bot.example', '/welcome');
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(page.body, /data-seed="\d{10}\.[\w-]{22}"/);
    // Guessing at the verify path gets nothing either.
    const guess = await ask(service, 'bot.example', '/.edgeplane/challenge?s=1&n=1&to=/welcome');
    assert.deepEqual([guess.status, guess.headers['set-cookie']], [403, undefined]);
    assert.equal(origin.seen.length, seenBefore, 'the origin saw none of them');

    assert.deepEqual([(await ask(service, 'bot.example', '/api/orders')).status, origin.seen.length], [200, seenBefore + 1], 'an exempt path');
    const open = await ask(service, 'open.example', '/welcome');
    assert.deepEqual([open.status, open.body], [200, welcome], 'service_botprotect 0');
    const text = (await call(service.url, 'GET', '/metrics')).text;
    assert.ok(metricValue(text, `edgeplane_proxy_requests_total{resource="${String(protectedId)}",outcome="bot_failed"}`) >= 1);
  });
});
