import { mkdirSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

// Apart from browser.ts (which registers vitest's hooks) so that a script (npm run screenshots) launches it too.

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
