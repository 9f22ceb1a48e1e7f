/**
 * A real browser for the dashboard tests: Debian's chromium driven by
 * playwright-core. Missing chromium fails the test with what to install.
 */
import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
// Evaluated in the page, not in Node.
declare const localStorage: { setItem(key: string, value: string): void };

const ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launchBrowser(): Promise<Browser> {
  expect(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium (apt-get update && apt-get install -y chromium); the dashboard tests drive it`).toBe(true);
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** A page whose uncaught errors fail the test that opened it. */
export async function openPage(browser: Browser, url: string, options: { token?: string } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  if (options.token) await context.addInitScript((token) => localStorage.setItem('taskbase.token', token), options.token);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  (page as Page & { errors?: string[] }).errors = errors;
  await page.goto(url);
  return page;
}

/** Waits until the page's subscriptions are connected ("● Live" in the header). */
export async function whenLive(page: Page): Promise<void> {
  await page.locator('[data-live="live"]').waitFor({ timeout: 10_000 });
}
