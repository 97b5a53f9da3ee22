/**
 * `npm run screenshots`: every page of the product (scripts/screenshots/pages.ts) at each of its widths, as PNG
 * files in docs/screenshots/ (`<page>-<width>.png`), taken in Chromium on a sandbox of its own (SQLite, a local
 * anvil chain, the demo merchant) holding the same demo data on every run. What varies between runs (ids,
 * addresses, keys, ports, the clock) is replaced by steady stand-ins, so a run changes the files only where a
 * page changed (decision 0055). Leaves no process behind, even when a page fails.
 *
 *   npm run screenshots                      # every page
 *   npm run screenshots -- checkout-pending  # only the pages named
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../test/helpers/chromium.ts';
import { startSandbox } from '../test/helpers/sandboxProcess.ts';
import { PAGES } from './screenshots/pages.ts';
import { makeScene, SCENE_PAYMENT_TTL } from './screenshots/scene.ts';
import { openSteadyPage } from './screenshots/steadyPage.ts';
import { steadyValues } from './screenshots/steadyValues.ts';
import { namedStandIns, openViewers } from './screenshots/viewers.ts';

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
/**
 * What the committed files may weigh (decision 0055): every one is in the repository's history for good, so a
 * page that grows past its share fails the run instead of slipping in.
 */
export const BUDGET = { perFileBytes: 320 * 1024, totalBytes: 6 * 1024 * 1024 } as const;
/** The heights of the first screen at each width; the screenshot is of the whole page below it too. */
const HEIGHT: Record<number, number> = { 1280: 800, 768: 1024, 390: 844 };

const only = process.argv.slice(2);
const pages = only.length > 0 ? PAGES.filter((p) => only.includes(p.name)) : PAGES;
if (pages.length === 0) throw new Error(`no page is named ${only.join(', ')}`);
mkdirSync(OUT, { recursive: true });

const sandbox = await startSandbox({ PAYLINK_LOG_LEVEL: 'warn', PAYLINK_PAYMENT_TTL: SCENE_PAYMENT_TTL });
try {
  const scene = await makeScene(sandbox);
  const steady = steadyValues(namedStandIns(scene, sandbox.env));
  const browser = await launchChromium();
  try {
    const viewers = await openViewers(browser, scene);
    let bytes = 0;
    const over: string[] = [];
    for (const entry of pages) {
      // Loaded afresh at each width: its scripts draw it for that width (a phone's QR code folded, say), and a
      // page resized after it was drawn measured its full height from the wider layout on some runs.
      for (const width of entry.widths) {
        const viewport = { width, height: HEIGHT[width] ?? 900 };
        const page = await openSteadyPage(viewers[entry.viewer], scene, steady, entry, viewport);
        const file = join(OUT, `${entry.name}-${width}.png`);
        await page.screenshot({ path: file, fullPage: true, animations: 'disabled', caret: 'hide' });
        const { size } = statSync(file);
        bytes += size;
        if (size > BUDGET.perFileBytes)
          over.push(`${file.slice(OUT.length)} (${Math.round(size / 1024)} KiB)`);
        process.stdout.write(`${file.slice(OUT.length)}  ${Math.round(size / 1024)} KiB\n`);
        await page.close();
      }
    }
    process.stdout.write(`${pages.length} pages, ${Math.round(bytes / 1024)} KiB in all\n`);
    if (over.length > 0) throw new Error(`over ${BUDGET.perFileBytes / 1024} KiB: ${over.join(', ')}`);
    if (pages === PAGES && bytes > BUDGET.totalBytes)
      throw new Error(
        `${Math.round(bytes / 1024)} KiB in all, over the ${BUDGET.totalBytes / 1024} KiB budget`,
      );
  } finally {
    await browser.close();
  }
} finally {
  await sandbox.stop();
}
