// The web console in Debian's chromium, driven headless by playwright-core, against the real
// service. A page records its script errors and the console messages chromium logs (a Content
// Security Policy violation is one), so each test can require a clean run.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { adminEmail, adminPassword } from './service.ts';

const chromiumPath = '/usr/bin/chromium';
export const noBrowser = existsSync(chromiumPath) ? false : `${chromiumPath} is missing (Debian package chromium): the console's browser tests are SKIPPED`;
if (noBrowser !== false) process.stderr.write(`\n*** ${noBrowser} ***\n\n`);

export function launchBrowser(): Promise<Browser> {
  // As root chromium needs --no-sandbox.
  return chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'], timeout: 30_000 });
}

export interface ConsolePage {
  page: Page;
  context: BrowserContext;
  /** Script errors and error messages logged so far (CSP violations among them). */
  problems: string[];
  close(): Promise<void>;
}

/** A new browser context (its own storage) on the console, signed in unless `signIn: false`. */
export async function openConsole(
  browser: Browser,
  baseUrl: string,
  options: { email?: string; password?: string; signIn?: boolean; width?: number } = {},
): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 860 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // A failed API call shows in the page (that is what the tests check); chromium also logs it.
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) problems.push(message.text());
  });
  await page.goto(`${baseUrl}/console/`);
  if (options.signIn !== false) await signIn(page, options.email ?? adminEmail, options.password ?? adminPassword);
  return { page, context, problems, close: () => context.close() };
}

/**
 * Signs in as a person would, waiting out the login throttle (five a second per address, and every
 * test's browser and API calls come from 127.0.0.1) as a person would after reading its message.
 */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  for (let attempt = 0; ; attempt += 1) {
    await page.getByRole('button', { name: 'Sign in' }).click();
    const outcome = await Promise.race([
      page.getByRole('button', { name: 'Sign out' }).waitFor().then(() => 'in'),
      page.getByText(/^Too many sign-in attempts/).waitFor().then(() => 'throttled'),
    ]);
    if (outcome === 'in') return;
    assert.ok(attempt < 5, 'sign-in throttled five times in a row');
    await new Promise((resolve) => setTimeout(resolve, 1100));
  }
}

/** Fails when the page logged an error or broke its Content Security Policy. */
export function assertClean(consolePage: ConsolePage): void {
  assert.deepEqual(consolePage.problems, [], 'the console logged no errors');
}

/**
 * Runs `use` on a console being opened (`openConsole`, or a test's own opener), then requires it
 * clean (`assertClean`); the console is closed whatever happens.
 */
export async function inConsole(opening: Promise<ConsolePage>, use: (consolePage: ConsolePage) => Promise<void>): Promise<void> {
  const consolePage = await opening;
  try {
    await use(consolePage);
    assertClean(consolePage);
  } finally {
    await consolePage.close();
  }
}

/**
 * Saves a screenshot of the page: into EDGEPLANE_SCREENSHOTS_DIR when set (`npm run screenshots`
 * refreshes docs/screenshots/ this way), otherwise into a temporary directory.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env['EDGEPLANE_SCREENSHOTS_DIR'] ?? path.join(os.tmpdir(), 'edgeplane-screenshots');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}
