import { mkdirSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Where every browser test writes its screenshots. */
export const SCREENSHOTS = 'test-results';
/** Generous: the machines are shared; a state that never comes still fails, just not on a stopwatch. */
export const UI_TIMEOUT_MS = 30_000;

/** Debian's Chromium (or PAYLINK_CHROMIUM), headless, without anything that would reach the internet. */
export async function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env.PAYLINK_CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Console errors and uncaught exceptions of the page, pushed to `errors` (checked after each test). */
export function collectPageErrors(page: Page, errors: string[]): void {
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
}
