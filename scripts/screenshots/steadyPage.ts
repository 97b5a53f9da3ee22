import type { BrowserContext, Page, Route } from 'playwright-core';
import { qrSvg } from '../../src/adapters/web/qrCode.ts';
import type { ScreenshotPage } from './pages.ts';
import type { Scene } from './scene.ts';
import type { SteadyValues } from './steadyValues.ts';

/**
 * Replaces, in the page's text and form fields, each key of the table it is given by its value, and takes the
 * focus off any field. Kept as source
 * text: the script runner (tsx) wraps named functions in a helper the page does not have.
 */
const REPLACE_IN_PAGE = `(table) => {
  const keys = Object.keys(table).sort((a, b) => b.length - a.length);
  const steadied = (text) => keys.reduce((out, key) => out.split(key).join(table[key]), text);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) node.nodeValue = steadied(node.nodeValue);
  for (const field of document.querySelectorAll('input, textarea')) field.value = steadied(field.value);
  // A focused field draws its ring or not depending on whether the window had focus: none is focused.
  if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
}`;

/** The text of every text node of the page and the value of every form field, as source text (see above). */
const TEXTS_IN_PAGE = `(() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) found.push(node.nodeValue);
  for (const field of document.querySelectorAll('input, textarea')) found.push(field.value);
  return found;
})()`;

/** The page's origin on the sandbox: the checkout's for a customer, the API's (the dashboard) for the others. */
export function originOf(scene: Scene, entry: ScreenshotPage): string {
  return entry.viewer === 'customer' ? scene.checkoutUrl : scene.apiUrl;
}

/**
 * Opens `entry` in `context` at `viewport` and makes it the same on every run: its clock runs until the page has loaded and
 * its scripts have drawn it, then stops (no countdown ticks, no poll rewrites the page after), and every value
 * that varies between runs is replaced by its steady stand-in, in its text, its form fields and its QR codes.
 */
export async function openSteadyPage(
  context: BrowserContext,
  scene: Scene,
  steady: SteadyValues,
  entry: ScreenshotPage,
  viewport: { width: number; height: number },
): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  await page.clock.install();
  await page.route(/\/(qr|funding)\.svg(\?|$)/, (route) => steadyQrCode(route, steady, entry.name));
  const response = await page.goto(`${originOf(scene, entry)}${entry.path(scene)}`);
  if (!response || response.status() >= 400)
    throw new Error(`${entry.name}: ${entry.path(scene)} answered ${response?.status()}`);
  await page.waitForLoadState('networkidle');
  await page.clock.pauseAt(Date.now() + 1_000);
  await page.evaluate('document.fonts.ready');
  const texts = (await page.evaluate(TEXTS_IN_PAGE)) as string[];
  await steadyDrawnCodes(page, steady, entry.name);
  const table = steady.tableFor(entry.name, texts);
  await page.evaluate(`(${REPLACE_IN_PAGE})(${JSON.stringify(table)})`);
  return page;
}

/**
 * The QR codes the dashboard draws into its pages (`data:` images: a link's URL, a second factor's secret):
 * drawn again from the steady text of the page's first read-only field (the link's URL), else of the page's URL.
 */
async function steadyDrawnCodes(page: Page, steady: SteadyValues, pageName: string): Promise<void> {
  const images = page.locator('img[src^="data:image/svg+xml"]');
  if ((await images.count()) === 0) return;
  const field = page.locator('input[readonly]').first();
  const text = (await field.count()) > 0 ? await field.inputValue() : page.url();
  const svg = await qrSvg(steady.steady(pageName, text));
  const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
  for (const image of await images.all())
    await image.evaluate(async (element, steadySrc) => {
      const drawn = element as unknown as { src: string; decode(): Promise<void> };
      drawn.src = steadySrc;
      await drawn.decode();
    }, src);
}

/**
 * A QR code drawn from its text with the steady values: the text is what the page offers beside it (its
 * EIP-681 link, or the deposit address alone for `?kind=address`), read from the page's own HTML.
 */
async function steadyQrCode(route: Route, steady: SteadyValues, pageName: string): Promise<void> {
  const url = new URL(route.request().url());
  const pageUrl = new URL(url.pathname.replace(/\/(qr|funding)\.svg$/, ''), url.origin);
  const html = await (await fetch(pageUrl)).text();
  const text =
    url.searchParams.get('kind') === 'address'
      ? /id="deposit-address"[^>]*>(0x[0-9a-fA-F]{40})</.exec(html)?.[1]
      : /href="(ethereum:[^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
  if (text === undefined) return route.continue();
  await route.fulfill({ contentType: 'image/svg+xml', body: await qrSvg(steady.steady(pageName, text)) });
}
