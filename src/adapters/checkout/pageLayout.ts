import { html, type SafeHtml } from '../web/html.ts';
import type { Language } from '../web/language.ts';
import { formatMoment, type MomentStyle } from '../web/localeFormat.ts';
import { pageDocument, languageSwitcher as sharedSwitcher } from '../web/pageDocument.ts';
import { MESSAGES } from './messages/index.ts';

/** The files every page of the checkout origin links, each with its content hash in the URL. */
export interface PageAssets {
  readonly stylesheet: string;
  /** The payment page's script. */
  readonly script: string;
  /** The refund claim page's script. */
  readonly refundScript: string;
  /** The subscribe page's and the portal's script: the wallet's way and "Revoke on chain" (decision 0061). */
  readonly subscriptionScript: string;
  readonly favicon: string;
  /** The merchant's colour (brandRoutes.ts), linked after Paylink's stylesheet; absent: Paylink's colour. */
  readonly brandStylesheet?: string | undefined;
}

/** The document around a page's body: language, title, icon, stylesheet, and the page's script if it has one. */
export function layout(input: {
  language: Language;
  title: SafeHtml | string;
  assets: PageAssets;
  body: SafeHtml;
  /** The script's URL; null for a page that needs none. */
  script: string | null;
}): string {
  return pageDocument({
    language: input.language,
    title: input.title,
    icon: { href: input.assets.favicon, type: 'image/svg+xml' },
    stylesheets: [
      input.assets.stylesheet,
      ...(input.assets.brandStylesheet ? [input.assets.brandStylesheet] : []),
    ],
    scripts: input.script ? [input.script] : [],
    body: input.body,
  });
}

/** A moment the script rewrites in the customer's own time zone (the server writes UTC). */
export function moment(date: Date, language: Language, style: MomentStyle): SafeHtml {
  return html`<time datetime="${date.toISOString()}" data-moment="${style}">${formatMoment(date, language, style)}</time>`;
}

/** The page in each language; `query` (`network=8453`) is kept, so a choice made without the script stays. */
export function languageSwitcher(current: Language, query?: string): SafeHtml {
  return sharedSwitcher(current, MESSAGES[current].language, query);
}

const BADGES = {
  done: { tone: 'ok', path: 'M14 25l7 7 13-15' },
  closed: { tone: 'muted', path: 'M17 17l14 14M31 17L17 31' },
  clock: { tone: 'muted', path: 'M24 12v13l8 5' },
  warning: { tone: 'warn', path: 'M24 13v14M24 33v2' },
} as const;

/** The round icon at the top of an end screen: a tick, a cross, a clock or an exclamation mark. */
export function badge(kind: keyof typeof BADGES): SafeHtml {
  const { tone, path } = BADGES[kind];
  return html`<svg class="badge ${tone}" viewBox="0 0 48 48" width="64" height="64" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22"/><path d="${path}"/></svg>`;
}

export function hiddenAttr(isHidden: boolean): SafeHtml | null {
  return isHidden ? html` hidden` : null;
}

/** A page that only says something: a title and a sentence (404, 500, a refund not found). */
export function messagePage(
  language: Language,
  assets: PageAssets,
  title: string,
  text: string | SafeHtml,
): string {
  const body = html`<main class="card">
<section class="stage end" aria-labelledby="title">
  ${badge('closed')}
  <h1 id="title">${title}</h1>
  <p>${text}</p>
</section>
<footer>${languageSwitcher(language)}</footer>
</main>`;
  return layout({ language, title, assets, body, script: null });
}
