import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { joinedParts, withoutCssComments } from '../web/joinedParts.ts';
import { pageScript } from '../web/pageScript.ts';
import type { PageAssets } from './pageLayout.ts';

/* The checkout's static files (scripts, stylesheet, icon), read once at start and served under their content hash. */

interface Asset {
  readonly body: Buffer;
  readonly type: string;
  /** Content hash: the page links `?v=<hash>`, so the file can be cached for good and still never be stale. */
  readonly version: string;
}

function assetOf(body: Buffer, type: string): Asset {
  return { body, type, version: createHash('sha256').update(body).digest('hex').slice(0, 12) };
}

function readAsset(name: string): Buffer {
  return readFileSync(new URL(`./assets/${name}`, import.meta.url));
}

function loadAsset(name: string, type: string): Asset {
  return assetOf(readAsset(name), type);
}

/** The stylesheet every page links, written as parts by what they style (checkoutFrame.css first). */
const STYLESHEET_PARTS = [
  'checkoutFrame.css',
  'orderSummary.css',
  'paymentFacts.css',
  'browserWallet.css',
  'endScreens.css',
  'claimAndLinkPages.css',
];

/**
 * A page's script: what the pages share (the status polling loop, statusPoll.js; the JSON POST, postJson.js), then
 * the page's own files, after what every web surface shares (pageScript), served as one script so that each page
 * still loads a single file.
 */
function loadPageScript(...names: string[]): Asset {
  const shared = ['statusPoll.js', 'postJson.js'];
  return assetOf(pageScript([...shared, ...names].map(readAsset)), 'text/javascript; charset=utf-8');
}

/** The files the pages link, each under its content hash. */
export function loadAssets() {
  const files = {
    script: loadPageScript('checkoutWallet.js', 'checkout.js'),
    refundScript: loadPageScript('refund.js'),
    subscriptionScript: loadPageScript('checkoutWallet.js', 'subscription.js'),
    stylesheet: assetOf(
      withoutCssComments(joinedParts(STYLESHEET_PARTS.map(readAsset))),
      'text/css; charset=utf-8',
    ),
    favicon: loadAsset('favicon.svg', 'image/svg+xml'),
  };
  const links: PageAssets = {
    script: `/assets/checkout.js?v=${files.script.version}`,
    refundScript: `/assets/refund.js?v=${files.refundScript.version}`,
    subscriptionScript: `/assets/subscription.js?v=${files.subscriptionScript.version}`,
    stylesheet: `/assets/checkout.css?v=${files.stylesheet.version}`,
    favicon: `/favicon.svg?v=${files.favicon.version}`,
  };
  const routes = [
    ['/assets/checkout.js', files.script],
    ['/assets/refund.js', files.refundScript],
    ['/assets/subscription.js', files.subscriptionScript],
    ['/assets/checkout.css', files.stylesheet],
    ['/favicon.svg', files.favicon],
  ] as const;
  return { links, routes };
}
