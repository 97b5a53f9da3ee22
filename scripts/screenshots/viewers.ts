import type { Browser, BrowserContext } from 'playwright-core';
import type { Viewer } from './pages.ts';
import type { DemoUser, Scene } from './scene.ts';
import { standInLike } from './steadyValues.ts';

/** Every page is taken in English, in UTC, at one device pixel per CSS pixel (small files), in the light scheme. */
export const CONTEXT_OPTIONS = {
  locale: 'en-GB',
  timezoneId: 'UTC',
  deviceScaleFactor: 1,
  colorScheme: 'light',
  reducedMotion: 'reduce',
} as const;

/** A browser context for each viewer, the merchant's and the operator's signed in through the sign-in page. */
export async function openViewers(browser: Browser, scene: Scene): Promise<Record<Viewer, BrowserContext>> {
  const context = () => browser.newContext(CONTEXT_OPTIONS);
  const signedIn = async (user: DemoUser) => {
    const made = await context();
    const page = await made.newPage();
    await page.goto(`${scene.apiUrl}/dashboard/login`);
    await page.locator('#email').fill(user.email);
    await page.locator('#password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/login'));
    await page.close();
    return made;
  };
  return {
    customer: await context(),
    visitor: await context(),
    merchant: await signedIn(scene.merchant),
    operator: await signedIn(scene.operator),
  };
}

/**
 * The stand-ins of the values the run knows by their role: the sandbox's ports become its defaults (3000, 3001,
 * 3002, 8545), the demo merchant's generated e-mail and id, the scene's payments, links, refund and receipt tokens
 * get stand-ins named after what they are.
 */
export function namedStandIns(scene: Scene, env: Record<string, string>): Record<string, string> {
  const named: Record<string, string> = {
    [`http://127.0.0.1:${env.PAYLINK_SANDBOX_WEBHOOK_PORT}`]: 'http://127.0.0.1:3002',
    [scene.apiUrl]: 'http://127.0.0.1:3000',
    [scene.checkoutUrl]: 'http://127.0.0.1:3001',
    [env.PAYLINK_RPC_URL!]: 'http://127.0.0.1:8545',
    [scene.merchant.email]: 'shop-demo@sandbox.paylink.test',
    [scene.merchantId]: standInLike(scene.merchantId, 'merchant'),
  };
  const roles = {
    ...prefixed('payment', scene.payments),
    ...prefixed('receipt', scene.receipts),
    ...prefixed('link', scene.links),
    refund: scene.refund,
  };
  for (const [role, value] of Object.entries(roles)) named[value] = standInLike(value, role);
  return named;
}

function prefixed(prefix: string, values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [`${prefix}-${key}`, value]));
}
