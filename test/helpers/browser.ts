import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { launchChromium } from './chromium.ts';

export { launchChromium, SCREENSHOTS, UI_TIMEOUT_MS } from './chromium.ts';

// The pages' checks run in the page; the project's types have no DOM library, so its globals are declared.
declare const window: unknown;
declare const document: { documentElement: { scrollWidth: number; clientWidth: number } };

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Chromium for the tests of one file or `describe`, launched and closed by the hooks `useChromium` registers. */
export interface ChromiumSession {
  /** The browser (launched in `beforeAll`: read it in a test or hook, not when the file loads). */
  readonly browser: Browser;
  /**
   * Console errors and uncaught exceptions of the pages `watch`ed in the current test. After each test the
   * helper expects it empty (and empties it); a test that expects an error takes it out with `errors.splice(0)`.
   */
  readonly errors: string[];
  /** Collects `page`'s errors into `errors`, and returns the page. */
  watch(page: Page): Page;
}

/**
 * Launches Chromium before the tests of the file (or `describe`) that calls it, checks after each test that no
 * watched page logged an error, and closes the browser after them: the set-up and teardown every browser test
 * needs, registered here so no file copies it.
 */
export function useChromium(): ChromiumSession {
  let browser: Browser | undefined;
  const errors: string[] = [];
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterEach(() => {
    expect(errors.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    get browser(): Browser {
      if (!browser) throw new Error('Chromium is launched in beforeAll: read the browser in a test or hook');
      return browser;
    },
    errors,
    watch(page) {
      collectPageErrors(page, errors);
      return page;
    },
  };
}

/** Console errors and uncaught exceptions of the page, pushed to `errors` (checked after each test). */
export function collectPageErrors(page: Page, errors: string[]): void {
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
}

type AxeWindow = {
  axe?: {
    run(
      context: unknown,
      options: { resultTypes: string[] },
    ): Promise<{ violations: { id: string; impact: string }[] }>;
  };
};

/**
 * axe-core's serious and critical violations on the page as it is, by rule id. Every rule runs; axe is loaded
 * once per document (a second check of the same page, at another width say, finds it there), and asked for the
 * details of its violations only (`resultTypes`), not of every element that passed, which is what it reports.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => (window as AxeWindow).axe !== undefined))) await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(async () => {
    const { axe } = window as AxeWindow;
    if (axe === undefined) throw new Error('axe-core did not load into the page');
    const { violations } = await axe.run(document, { resultTypes: ['violations'] });
    return violations.map((v) => ({ id: v.id, impact: v.impact }));
  });
  return results.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
}

/** Whether the page scrolls sideways at its viewport's width (a phone's 390 px, say). */
export async function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
}

/**
 * The page as it is, at its viewport's width: axe finds nothing serious, and it does not scroll sideways. With a
 * `screenshot` path, the screen is kept there for a person to look at. The failure names the screen and width.
 */
export async function expectCleanScreen(page: Page, name: string, screenshot?: string): Promise<void> {
  const width = page.viewportSize()?.width;
  expect({ name, width, violations: await accessibilityViolations(page) }).toEqual({
    name,
    width,
    violations: [],
  });
  expect({ name, width, sideways: await scrollsSideways(page) }).toEqual({ name, width, sideways: false });
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
}
